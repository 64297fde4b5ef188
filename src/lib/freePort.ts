import net from 'node:net';
import type { AddressInfo } from 'node:net';

/** A port free on loopback right now, for a listener that cannot be given port 0 (the Temporal SDK's exporter). */
export function freeLoopbackPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}
