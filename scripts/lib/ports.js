'use strict';
// Ports: finding free ones, checking a port is not taken, waiting for something to answer.

const fs = require('node:fs');
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

const LOWEST_STABLE_PORT = 10_000;

/** The first port of the kernel's ephemeral range (32768 on Linux unless configured otherwise). */
function ephemeralRangeStart() {
  try {
    const [low] = fs.readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/).map(Number);
    if (Number.isInteger(low) && low > LOWEST_STABLE_PORT + 1_000) return low;
  } catch {
    // Not Linux: the IANA dynamic range starts at 49152.
  }
  return 32_768;
}

function listenOn(port) {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(null));
    server.listen({ port, host: '127.0.0.1', exclusive: true }, () => resolve(server));
  });
}

/**
 * `count` distinct loopback ports, free now and below the ephemeral range, all held while choosing. A port the kernel
 * hands out (a listen on port 0, the local end of any outgoing connection) may be handed to another process between
 * its choice and the server's bind, or while a server is restarted on it; one below the range is taken only by a
 * process that asks for it by number.
 */
async function freeStablePorts(count, taken = new Set()) {
  const ceiling = ephemeralRangeStart();
  const held = [];
  const chosen = [];
  try {
    while (chosen.length < count) {
      const port = LOWEST_STABLE_PORT + Math.floor(Math.random() * (ceiling - LOWEST_STABLE_PORT));
      if (taken.has(port) || RESERVED_PORTS.has(port)) continue;
      const server = await listenOn(port);
      if (!server) continue;
      held.push(server);
      taken.add(port);
      chosen.push(port);
    }
  } finally {
    await Promise.all(held.map((server) => new Promise((resolve) => server.close(resolve))));
  }
  return chosen;
}

/** One free port of `freeStablePorts`, not among `taken` (which it joins). */
async function freePort(taken = new Set()) {
  const [port] = await freeStablePorts(1, taken);
  return port;
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

module.exports = { RESERVED_PORTS, isPortFree, freePort, freeStablePorts, requireFreePorts, httpStatus, waitUntil, waitForHttp };
