import http from 'node:http';
import type { AddressInfo } from 'node:net';
import sharp from 'sharp';

/**
 * A queue-style generation provider on loopback, speaking the protocol of the HTTP adapter
 * (see src/providers/http/protocol.ts). Tests steer it: how long a generation runs, how it ends,
 * Retry-After on polls, slow answers, and one-shot failures per route.
 */

export type FakeRoute = 'submit' | 'status' | 'lookup' | 'cancel' | 'output';

export interface FakeResponse {
  status: number;
  headers?: Record<string, string>;
  body?: unknown;
}

export interface FakeGenerationPlan {
  /** Status polls answered `running` before the generation finishes. */
  runningPolls: number;
  /** Retry-After seconds sent with `queued` / `running` answers. */
  retryAfterSeconds?: number;
  outcome: { status: 'succeeded' } | { status: 'failed'; error: { code: string; message: string } };
  /** Number of PNG outputs of a successful generation. */
  outputs: number;
  /** Content type the output files are served with. */
  outputContentType: string;
}

export interface FakeGeneration {
  id: string;
  idempotencyKey: string;
  body: unknown;
  status: 'queued' | 'running' | 'succeeded' | 'failed' | 'cancelled';
  polls: number;
  plan: FakeGenerationPlan;
}

export interface RecordedRequest {
  route: FakeRoute | 'unknown';
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  at: number;
}

export const DEFAULT_PLAN: FakeGenerationPlan = {
  runningPolls: 2,
  outcome: { status: 'succeeded' },
  outputs: 1,
  outputContentType: 'image/png',
};

export const FAKE_OUTPUT_SIZE = { width: 64, height: 48 };

export class FakeProviderServer {
  /** Plan given to generations created from now on. */
  plan: FakeGenerationPlan = { ...DEFAULT_PLAN };
  readonly requests: RecordedRequest[] = [];
  private readonly generationsById = new Map<string, FakeGeneration>();
  private readonly generationsByKey = new Map<string, FakeGeneration>();
  private readonly oneShots = new Map<FakeRoute, FakeResponse[]>();
  private readonly delays = new Map<FakeRoute, number>();
  private nextId = 1;

  private constructor(
    private readonly server: http.Server,
    readonly url: string,
    private readonly apiKey: string | undefined,
    private readonly png: Buffer,
  ) {}

  static async start(options: { apiKey?: string } = {}): Promise<FakeProviderServer> {
    const png = await sharp({
      create: { ...FAKE_OUTPUT_SIZE, channels: 3, background: { r: 200, g: 60, b: 90 } },
    })
      .png()
      .toBuffer();
    const created: { instance?: FakeProviderServer } = {};
    const server = http.createServer((req, res) => {
      created.instance?.handle(req, res).catch((error: unknown) => {
        if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { code: 'fake_server_bug', message: String(error) } }));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    created.instance = new FakeProviderServer(server, `http://127.0.0.1:${port}`, options.apiKey, png);
    return created.instance;
  }

  /** The next `count` requests on `route` get `response` instead of the normal answer. */
  failNext(route: FakeRoute, response: FakeResponse, count = 1): void {
    const queue = this.oneShots.get(route) ?? [];
    for (let i = 0; i < count; i += 1) queue.push(response);
    this.oneShots.set(route, queue);
  }

  /** Every answer on `route` is held back for `ms` (0 to stop). */
  delay(route: FakeRoute, ms: number): void {
    this.delays.set(route, ms);
  }

  /** Back to the default plan, no pending one-shot answers, no delays. Generations are kept. */
  reset(): void {
    this.plan = { ...DEFAULT_PLAN };
    this.oneShots.clear();
    this.delays.clear();
  }

  generations(): FakeGeneration[] {
    return [...this.generationsById.values()];
  }

  requestsTo(route: FakeRoute): RecordedRequest[] {
    return this.requests.filter((r) => r.route === route);
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', this.url);
    const route = routeOf(req.method ?? 'GET', url.pathname);
    this.requests.push({ route, method: req.method ?? '', path: url.pathname + url.search, headers: req.headers, at: Date.now() });
    const raw = await readBody(req);

    const delayMs = route === 'unknown' ? 0 : (this.delays.get(route) ?? 0);
    if (delayMs > 0) await new Promise((resolve) => setTimeout(resolve, delayMs));
    if (res.destroyed) return;

    if (route === 'unknown') return send(res, { status: 404, body: { error: { code: 'not_found', message: url.pathname } } });
    if (this.apiKey && req.headers.authorization !== `Bearer ${this.apiKey}`) {
      return send(res, { status: 401, body: { error: { code: 'unauthorized', message: 'bad api key' } } });
    }
    const oneShot = this.oneShots.get(route)?.shift();
    if (oneShot) return send(res, oneShot);

    switch (route) {
      case 'submit':
        return send(res, this.submit(req, raw));
      case 'status':
        return send(res, this.status(idFrom(url.pathname)));
      case 'lookup': {
        const found = this.generationsByKey.get(url.searchParams.get('idempotency_key') ?? '');
        return send(res, found ? { status: 200, body: this.view(found) } : { status: 404, body: { error: { code: 'not_found' } } });
      }
      case 'cancel':
        return send(res, this.cancel(idFrom(url.pathname)));
      case 'output':
        return this.output(url.pathname, res);
    }
  }

  private submit(req: http.IncomingMessage, raw: string): FakeResponse {
    const key = req.headers['idempotency-key'];
    if (typeof key !== 'string' || key === '') {
      return { status: 400, body: { error: { code: 'invalid_request', message: 'Idempotency-Key is required' } } };
    }
    const existing = this.generationsByKey.get(key);
    if (existing) return { status: 200, body: this.view(existing) };
    const generation: FakeGeneration = {
      id: `gen_${this.nextId++}`,
      idempotencyKey: key,
      body: raw ? JSON.parse(raw) : undefined,
      status: 'queued',
      polls: 0,
      plan: structuredClone(this.plan),
    };
    this.generationsById.set(generation.id, generation);
    this.generationsByKey.set(key, generation);
    return { status: 202, headers: this.retryAfter(generation), body: this.view(generation) };
  }

  private status(id: string): FakeResponse {
    const g = this.generationsById.get(id);
    if (!g) return { status: 404, body: { error: { code: 'not_found', message: id } } };
    if (g.status === 'queued' || g.status === 'running') {
      g.polls += 1;
      if (g.polls <= g.plan.runningPolls) g.status = 'running';
      else g.status = g.plan.outcome.status;
    }
    return { status: 200, headers: this.retryAfter(g), body: this.view(g) };
  }

  private cancel(id: string): FakeResponse {
    const g = this.generationsById.get(id);
    if (!g) return { status: 404, body: { error: { code: 'not_found', message: id } } };
    if (g.status === 'succeeded' || g.status === 'failed') {
      return { status: 409, body: { error: { code: 'already_finished', message: g.status } } };
    }
    g.status = 'cancelled';
    return { status: 200, body: this.view(g) };
  }

  private output(pathname: string, res: http.ServerResponse): void {
    res.writeHead(200, {
      'content-type': this.generationsById.get(pathname.split('/')[2] ?? '')?.plan.outputContentType ?? 'image/png',
      'content-length': String(this.png.length),
    });
    res.end(this.png);
  }

  private retryAfter(g: FakeGeneration): Record<string, string> {
    const active = g.status === 'queued' || g.status === 'running';
    return active && g.plan.retryAfterSeconds !== undefined ? { 'retry-after': String(g.plan.retryAfterSeconds) } : {};
  }

  private view(g: FakeGeneration): Record<string, unknown> {
    const progress = g.status === 'succeeded' ? 100 : Math.floor((g.polls / (g.plan.runningPolls + 1)) * 100);
    return {
      id: g.id,
      status: g.status,
      progress,
      ...(g.status === 'failed' && g.plan.outcome.status === 'failed' ? { error: g.plan.outcome.error } : {}),
      ...(g.status === 'succeeded'
        ? { outputs: Array.from({ length: g.plan.outputs }, (_, i) => ({ url: `/files/${g.id}/${i}.png`, contentType: 'image/png' })) }
        : {}),
    };
  }
}

function routeOf(method: string, pathname: string): FakeRoute | 'unknown' {
  if (method === 'POST' && pathname === '/v1/generations') return 'submit';
  if (method === 'GET' && pathname === '/v1/generations') return 'lookup';
  if (method === 'GET' && /^\/v1\/generations\/[^/]+$/.test(pathname)) return 'status';
  if (method === 'POST' && /^\/v1\/generations\/[^/]+\/cancel$/.test(pathname)) return 'cancel';
  if (method === 'GET' && /^\/files\/[^/]+\/\d+\.png$/.test(pathname)) return 'output';
  return 'unknown';
}

function idFrom(pathname: string): string {
  return decodeURIComponent(pathname.split('/')[3] ?? '');
}

function readBody(req: http.IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let data = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (data += chunk));
    req.on('end', () => resolve(data));
    req.on('error', reject);
  });
}

function send(res: http.ServerResponse, response: FakeResponse): void {
  if (res.destroyed) return;
  const body = response.body === undefined ? '' : JSON.stringify(response.body);
  res.writeHead(response.status, { ...(body ? { 'content-type': 'application/json' } : {}), ...response.headers });
  res.end(body);
}
