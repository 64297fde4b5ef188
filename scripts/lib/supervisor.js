'use strict';
// Keeps a set of services: starts them, notices when one dies, stops them all in reverse order.

const log = require('./log');

class Supervisor {
  /** @param {{ record?: { add(service: object): void, clear(): void } }} [options] record: where started services are noted */
  constructor(options = {}) {
    this.record = options.record || null;
    this.services = [];
    this.shuttingDown = false;
    this.unexpectedExitListeners = [];
  }

  /** Starts a service and watches it; an exit that was not asked for is reported to the listeners. */
  start(service) {
    service.start();
    this.services.push(service);
    if (this.record && service.pid !== undefined) this.record.add(service);
    service.exited.then(() => {
      if (service.stopping || this.shuttingDown) return;
      for (const listener of this.unexpectedExitListeners) listener(service);
    });
    return service;
  }

  onUnexpectedExit(listener) {
    this.unexpectedExitListeners.push(listener);
  }

  /** Stops every service, newest first (apps before the infrastructure they use), and waits for each. */
  async stopAll() {
    this.shuttingDown = true;
    for (const service of [...this.services].reverse()) {
      if (service.running) log.info(`stopping ${service.name}`);
      await service.stop();
    }
    if (this.record) this.record.clear();
  }
}

module.exports = { Supervisor };
