'use strict';
// Ports: finding free ones, checking a port is not taken, waiting for something to answer.

const net = require('node:net');
const http = require('node:http');
const { delay } = require('./proc');
const { SetupError } = require('./log');

/** Ports other stacks on this machine use by default; never handed out to a test stack. */
const RESERVED_PORTS = new Set([3000, 54329, 7233, 8233, 9000, 9001, 55432, 7300, 8300, 9100, 9101]);

function isPortFree(port, host = '127.0.0.1') {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(false));
    server.listen({ port, host, exclusive: true }, () => server.close(() => resolve(true)));
  });
}

async function freePort(taken = new Set()) {
  for (;;) {
    const port = await new Promise((resolve, reject) => {
      const server = net.createServer();
      server.once('error', reject);
      server.listen({ port: 0, host: '127.0.0.1', exclusive: true }, () => {
        const { port: chosen } = server.address();
        server.close(() => resolve(chosen));
      });
    });
    if (!RESERVED_PORTS.has(port) && !taken.has(port)) {
      taken.add(port);
      return port;
    }
  }
}

/** Fails with a clear message when a port the stack needs is taken. */
async function requireFreePorts(entries) {
  const busy = [];
  for (const { name, port, variable } of entries) {
    if (!(await isPortFree(port))) busy.push(`${name} port ${port} is in use (override with ${variable}=<port>)`);
  }
  if (busy.length > 0) {
    throw new SetupError(
      `cannot start: ${busy.join('; ')}`,
      'stop whatever holds the port (is another `npm run dev` running?) or choose another port',
    );
  }
}

function httpStatus(url, timeoutMs = 2000) {
  return new Promise((resolve) => {
    const request = http.get(url, { timeout: timeoutMs }, (response) => {
      response.resume();
      resolve(response.statusCode);
    });
    request.on('timeout', () => request.destroy());
    request.on('error', () => resolve(0));
  });
}

/**
 * Polls `probe` until it returns true. Gives up when `service` (if given) exits, or after `timeoutMs`.
 */
async function waitUntil(description, probe, { timeoutMs = 60_000, intervalMs = 200, service } = {}) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (service && !service.running) {
      const tail = service.tail();
      throw new Error(`${service.name} ${service.describeExit()} while waiting for ${description}${tail ? `\n${tail}` : ''}`);
    }
    if (await probe()) return;
    if (Date.now() > deadline) {
      const tail = service ? service.tail() : '';
      throw new Error(`timed out after ${timeoutMs / 1000}s waiting for ${description}${tail ? `\n${tail}` : ''}`);
    }
    await delay(intervalMs);
  }
}

function waitForHttp(url, options = {}) {
  const expect = options.expectStatus || 200;
  return waitUntil(`${url} to answer ${expect}`, async () => (await httpStatus(url)) === expect, options);
}

module.exports = { RESERVED_PORTS, isPortFree, freePort, requireFreePorts, httpStatus, waitUntil, waitForHttp };
