/** Idle keep-alive connections outlive a load balancer's idle timeout, so it never reuses one the API closed. */
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningApi } from '../../../src/api/server';
import { startTestApi } from '../../support/api';

let api: RunningApi;

beforeAll(async () => {
  api = await startTestApi();
});

afterAll(() => api?.stop());

/** Sends one request on `socket` and resolves with the answer's status line. */
function requestOn(socket: net.Socket, host: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      socket.off('close', onClose);
      resolve(chunk.toString('latin1').split('\r\n')[0]);
    };
    const onClose = () => {
      socket.off('data', onData);
      reject(new Error('the API closed the connection'));
    };
    socket.once('data', onData);
    socket.once('close', onClose);
    socket.write(`GET /healthz HTTP/1.1\r\nHost: ${host}\r\nConnection: keep-alive\r\n\r\n`);
  });
}

describe('HTTP keep-alive', () => {
  it('keeps an idle connection open longer than Node’s 5 s default', async () => {
    const { hostname, port } = new URL(api.url);
    const socket = net.connect(Number(port), hostname);
    await new Promise((resolve) => socket.once('connect', resolve));
    try {
      expect(await requestOn(socket, `${hostname}:${port}`)).toBe('HTTP/1.1 200 OK');
      await new Promise((r) => setTimeout(r, 6_500));
      expect(socket.destroyed).toBe(false);
      expect(await requestOn(socket, `${hostname}:${port}`)).toBe('HTTP/1.1 200 OK');
    } finally {
      socket.destroy();
    }
    expect(api.server.keepAliveTimeout).toBe(65_000);
    expect(api.server.headersTimeout).toBeGreaterThan(api.server.keepAliveTimeout);
  });
});
