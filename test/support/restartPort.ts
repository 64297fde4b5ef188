/**
 * Ports for servers a test stops and starts again on the same address. A port the kernel hands out (a listen on port
 * 0, the local end of a connection) can be handed to another process in the moment its server is down, and the
 * restart then finds it taken. A port below the ephemeral range is never handed out: only a process that asks for it
 * by number can take it.
 */
import fs from 'node:fs';
import net from 'node:net';

/** Default ports of other stacks on this machine (see scripts/lib/ports.js); never chosen here. */
const RESERVED_PORTS = new Set([3000, 54329, 7233, 8233, 9000, 9001, 55432, 7300, 8300, 9100, 9101]);
const LOWEST = 10_000;

/** The first port of the kernel's ephemeral range (32768 on Linux unless configured otherwise). */
function ephemeralRangeStart(): number {
  try {
    const [low] = fs.readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/).map(Number);
    if (Number.isInteger(low) && low! > LOWEST + 1_000) return low!;
  } catch {
    // Not Linux: the IANA dynamic range starts at 49152.
  }
  return 32_768;
}

function listenOn(port: number): Promise<net.Server | null> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(null));
    server.listen({ port, host: '127.0.0.1', exclusive: true }, () => resolve(server));
  });
}

const close = (server: net.Server) => new Promise((resolve) => server.close(resolve));

/** `count` distinct loopback ports free now and below the ephemeral range, all held while choosing. */
export async function freeRestartPorts(count: number): Promise<number[]> {
  const ceiling = ephemeralRangeStart();
  const held: net.Server[] = [];
  const chosen = new Set<number>();
  try {
    while (chosen.size < count) {
      const port = LOWEST + Math.floor(Math.random() * (ceiling - LOWEST));
      if (chosen.has(port) || RESERVED_PORTS.has(port)) continue;
      const server = await listenOn(port);
      if (!server) continue;
      held.push(server);
      chosen.add(port);
    }
  } finally {
    await Promise.all(held.map(close));
  }
  return [...chosen];
}

export async function freeRestartPort(): Promise<number> {
  const [port] = await freeRestartPorts(1);
  return port!;
}
