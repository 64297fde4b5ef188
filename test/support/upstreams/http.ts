/** Small pieces every fake upstream shares: a loopback server, request recording, JSON answers. */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { RecordedUpstreamRequest } from './types';

export type Handler = (req: http.IncomingMessage, body: Buffer, res: http.ServerResponse) => void | Promise<void>;

export function sendJson(res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

export function sendBytes(res: http.ServerResponse, contentType: string, bytes: Buffer): void {
  res.writeHead(200, { 'content-type': contentType, 'content-length': String(bytes.length) });
  res.end(bytes);
}

export interface FakeServer {
  url: string;
  close(): Promise<void>;
  /** Stops listening and drops every connection: the upstream refuses connections until `up`. */
  down(): Promise<void>;
  /** Listens again on the same port. */
  up(): Promise<void>;
}

/** Starts `handler` on 127.0.0.1 (port 0), recording every request into `requests`. */
export async function startServer(handler: Handler, requests: RecordedUpstreamRequest[]): Promise<FakeServer> {
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      requests.push({ method: req.method ?? 'GET', url: req.url ?? '/', headers: req.headers, body: body.toString('utf8') });
      Promise.resolve(handler(req, body, res)).catch((error: unknown) => {
        if (!res.headersSent) sendJson(res, 500, { error: String(error) });
        else res.end();
      });
    });
  });
  const listen = (port: number) => new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const stop = () =>
    new Promise<void>((resolve) => {
      if (!server.listening) return resolve();
      server.closeAllConnections();
      server.close(() => resolve());
    });
  await listen(0);
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: stop,
    down: stop,
    up: () => (server.listening ? Promise.resolve() : listen(port)),
  };
}

/** Posts a webhook; a lost or refused delivery is the receiver's business, as it is for the real upstream. */
export async function postWebhook(url: string, headers: Record<string, string>, body: string): Promise<number | undefined> {
  try {
    const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
    await res.arrayBuffer();
    return res.status;
  } catch {
    return undefined;
  }
}

/** What every fake keeps: its key, the requests it saw, its settings and the paid and cancelled counts. */
export function fakeBookkeeping(apiKey: string) {
  let paid = 0;
  let cancels = 0;
  const rateLimitedPrompts = new Set<string>();
  return {
    shared: {
      apiKey,
      requests: [] as RecordedUpstreamRequest[],
      slowMs: 8_000,
      dropCallbacks: false,
      paidSubmissions: () => paid,
      cancellations: () => cancels,
    },
    pay: () => void (paid += 1),
    cancel: () => void (cancels += 1),
    /** True the first time a prompt carrying `[upstream:rate-limit]` is seen: that request gets the 429. */
    rateLimitsNow(prompt: unknown, scenario: Set<string>): boolean {
      if (!scenario.has('rate-limit') || rateLimitedPrompts.has(String(prompt))) return false;
      rateLimitedPrompts.add(String(prompt));
      return true;
    },
  };
}
