/**
 * Ports for servers a test stops and starts again on the same address: below the kernel's ephemeral range, where no
 * other process's outgoing connection can be handed one while the server is down (scripts/lib/ports.js).
 */
import { createRequire } from 'node:module';

const { freeStablePorts } = createRequire(__filename)('../../scripts/lib/ports.js') as { freeStablePorts(count: number): Promise<number[]> };

/** `count` distinct loopback ports free now and below the ephemeral range. */
export function freeRestartPorts(count: number): Promise<number[]> {
  return freeStablePorts(count);
}

export async function freeRestartPort(): Promise<number> {
  const [port] = await freeRestartPorts(1);
  return port!;
}
