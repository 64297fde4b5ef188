/**
 * POST /v1/admin/models/import-cog reaches only the operator's allowed networks and reads a schema the way a guarded
 * client must: a URL with a fragment or query is refused before any request, a redirect is not followed, an answer is
 * cut off at its size and time limits, link-local and metadata addresses are never reached, and no error repeats what
 * the server answered.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../../src/config';
import { post, startTestApi } from '../../support/api';
import { startTestStack, type TestStack } from '../../support/stack';
import { createAdminKey } from '../../support/accounts';

/** Text no error may repeat: it stands for whatever an internal page holds. */
const SECRET = 'internal-page-secret-7f3a9c';
const SCHEMA = readFileSync(path.join(REPO_ROOT, 'examples', 'cog', '.cog', 'openapi_schema.json'), 'utf8');

interface Recorded {
  url: string;
  served: string[];
  closed: string[];
  close(): Promise<void>;
}

/** An HTTP server on loopback that records each path asked for and each answer cut off before it ended. */
async function startServer(handler: (req: http.IncomingMessage, res: http.ServerResponse, recorded: Recorded) => void): Promise<Recorded> {
  const recorded = { served: [] as string[], closed: [] as string[] } as Recorded;
  const server = http.createServer((req, res) => {
    recorded.served.push(req.url ?? '');
    res.on('close', () => {
      if (!res.writableFinished) recorded.closed.push(req.url ?? '');
    });
    handler(req, res, recorded);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  recorded.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  recorded.close = () => {
    server.closeAllConnections();
    return new Promise((resolve) => server.close(() => resolve()));
  };
  return recorded;
}

let stack: TestStack;
let adminKey: string;
const servers: Recorded[] = [];

async function server(handler: Parameters<typeof startServer>[0]): Promise<Recorded> {
  const started = await startServer(handler);
  servers.push(started);
  return started;
}

beforeAll(async () => {
  stack = await startTestStack({ workflowWorker: false });
  adminKey = await createAdminKey(stack.prisma);
}, 60_000);

afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
  await stack?.stop();
});

let counter = 0;
function importCog(url: string) {
  counter += 1;
  const slug = `guard${Date.now().toString(36)}${counter}/painter/text-to-image`;
  return post(`${stack.url}/v1/admin/models/import-cog`, adminKey, { url, slug, priceMicroCents: 1000, visibility: 'private' });
}

/** A page of an internal service, full of what must not leak. */
function internalPage(_req: http.IncomingMessage, res: http.ServerResponse) {
  res.writeHead(200, { 'content-type': 'text/html' }).end(`<html><body>${SECRET} ${'x'.repeat(2000)}</body></html>`);
}

describe('import-cog', () => {
  it('refuses a URL ending in # (or with a query) before any request, so no page can be read through it', async () => {
    const internal = await server(internalPage);
    for (const url of [`${internal.url}/docs#`, `${internal.url}/docs?`, `${internal.url}/docs?x=1`, `${stack.url}/docs#`]) {
      const answer = await importCog(url);
      expect(answer.status, url).toBe(400);
      expect(answer.body.error.code).toBe('VALIDATION_ERROR');
      expect(JSON.stringify(answer.body)).not.toContain(SECRET);
      expect(JSON.stringify(answer.body)).not.toMatch(/<html|<!doctype/i);
    }
    expect(internal.served).toEqual([]);
  });

  it('never repeats what the server answered: not an error page, not a page that is not a schema', async () => {
    const internal = await server((req, res) => {
      if (req.url === '/notjson/openapi.json') return void res.writeHead(200, { 'content-type': 'text/html' }).end(`<html>${SECRET}</html>`);
      if (req.url === '/broken/openapi.json') return void res.writeHead(500, { 'content-type': 'text/plain' }).end(`${SECRET} stack trace`);
      res.writeHead(404, { 'content-type': 'text/plain' }).end(`${SECRET} not here`);
    });
    for (const base of [`${internal.url}/notjson`, `${internal.url}/broken`, `${internal.url}/missing`]) {
      const answer = await importCog(base);
      expect(answer.status, base).toBe(400);
      expect(answer.body.error.code).toBe('VALIDATION_ERROR');
      expect(JSON.stringify(answer.body), base).not.toContain(SECRET);
    }
    expect(internal.served).toEqual(['/notjson/openapi.json', '/broken/openapi.json', '/missing/openapi.json']);
  });

  it('does not follow a redirect of the schema to another address', async () => {
    const elsewhere = await server((_req, res) => void res.writeHead(200, { 'content-type': 'application/json' }).end(SCHEMA));
    const redirecting = await server((_req, res) => void res.writeHead(302, { location: `${elsewhere.url}/openapi.json` }).end());
    const answer = await importCog(redirecting.url);
    expect(answer.status).toBe(400);
    expect(answer.body.error.code).toBe('VALIDATION_ERROR');
    expect(answer.body.error.message).toMatch(/redirect/i);
    expect(redirecting.served).toEqual(['/openapi.json']);
    expect(elsewhere.served).toEqual([]);
  });

  it('cuts off an answer that never ends at the size limit, at once', async () => {
    const endless = await server((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"components": {"schemas": {"Input": {"description": "');
      const chunk = `${SECRET} ${'y'.repeat(64 * 1024)}`;
      const timer = setInterval(() => res.write(chunk), 20);
      res.on('close', () => clearInterval(timer));
    });
    const started = Date.now();
    const answer = await importCog(endless.url);
    expect(answer.status).toBe(400);
    expect(Date.now() - started).toBeLessThan(8_000);
    expect(answer.body.error.message).toMatch(/larger than|limit/i);
    expect(JSON.stringify(answer.body)).not.toContain(SECRET);
    await expect.poll(() => endless.closed, { timeout: 5_000 }).toEqual(['/openapi.json']);
  }, 20_000);

  it('cuts off an answer that trickles forever at the time limit', async () => {
    const trickle = await server((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"components": ');
      const timer = setInterval(() => res.write(' '), 200);
      res.on('close', () => clearInterval(timer));
    });
    const started = Date.now();
    const answer = await importCog(trickle.url);
    const took = Date.now() - started;
    expect(answer.status).toBe(400);
    expect(answer.body.error.message).toMatch(/within \d+ s/);
    expect(took).toBeLessThan(15_000);
    await expect.poll(() => trickle.closed, { timeout: 5_000 }).toEqual(['/openapi.json']);
  }, 40_000);

  it.each(['http://169.254.169.254', 'http://[fe80::1]:5000', 'http://metadata.google.internal', 'http://0.0.0.0:5000'])(
    'never reaches %s, whatever the allowed networks',
    async (url) => {
      const answer = await importCog(url);
      expect(answer.status).toBe(400);
      expect(answer.body.error.code).toBe('VALIDATION_ERROR');
      expect(answer.body.error.message).toMatch(/is an? (link-local|metadata|unspecified) (address|name)/);
    },
  );

  it('refuses a server outside COG_ALLOWED_NETWORKS, naming the setting, without a request to it', async () => {
    const cog = await server((_req, res) => void res.writeHead(200, { 'content-type': 'application/json' }).end(SCHEMA));
    const api = await startTestApi({ COG_ALLOWED_NETWORKS: '10.20.0.0/16, gpu-1.internal' });
    try {
      const answer = await post(`${api.url}/v1/admin/models/import-cog`, adminKey, { url: cog.url, slug: 'guardnet/painter/text-to-image', priceMicroCents: 1, visibility: 'private' });
      expect(answer.status).toBe(400);
      expect(answer.body.error.code).toBe('VALIDATION_ERROR');
      expect(answer.body.error.message).toContain('COG_ALLOWED_NETWORKS');
      expect(cog.served).toEqual([]);
    } finally {
      await api.stop();
    }
  });

  it('still registers a server on an allowed network (loopback, in tests) that answers its schema', async () => {
    const cog = await server((_req, res) => void res.writeHead(200, { 'content-type': 'application/json' }).end(SCHEMA));
    const answer = await importCog(`${cog.url}/`);
    expect(answer.status, JSON.stringify(answer.body)).toBe(201);
    expect(answer.body).toMatchObject({ serverUrl: cog.url, fields: ['prompt', 'steps', 'width', 'height', 'seed'] });
  });
});
