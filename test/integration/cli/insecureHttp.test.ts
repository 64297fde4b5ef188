/**
 * The CLI sends the API key in every request's headers, so it refuses a plain http:// API address on another machine
 * (from --base-url, GENMEDIA_BASE_URL or a saved login) unless the user insists with --allow-insecure-http. A
 * receiver on this machine's own network address stands in for the remote API and records whatever reaches it.
 */
import { mkdtempSync, statSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runCli, type CliRun } from '../../support/cli';

const KEY = 'gm_test_key_that_must_not_travel_in_clear';

/** This machine's address on its network (not loopback); 0.0.0.0 (also this machine) when it has none. */
function networkAddress(): string {
  const external = Object.values(os.networkInterfaces())
    .flat()
    .find((info) => info && info.family === 'IPv4' && !info.internal);
  return external?.address ?? '0.0.0.0';
}

interface Received {
  method: string;
  url: string;
  authorization: string | undefined;
}

const received: Received[] = [];
let server: http.Server;
let remoteUrl: string;

beforeAll(async () => {
  server = http.createServer((req, res) => {
    received.push({ method: req.method ?? '', url: req.url ?? '', authorization: req.headers.authorization });
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ models: [] }));
  });
  await new Promise<void>((resolve) => server.listen(0, '0.0.0.0', resolve));
  remoteUrl = `http://${networkAddress()}:${(server.address() as AddressInfo).port}`;
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

beforeEach(() => {
  received.length = 0;
});

function tempDir(prefix: string): string {
  return mkdtempSync(path.join(os.tmpdir(), `genmedia-cli-${prefix}-`));
}

function cli(args: string[], env: NodeJS.ProcessEnv, input = ''): Promise<CliRun> {
  return runCli(args, { env, cwd: tempDir('cwd'), input });
}

function envWith(vars: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, GENMEDIA_CONFIG_DIR: tempDir('config'), ...vars };
  for (const name of ['GENMEDIA_API_KEY', 'GENMEDIA_BASE_URL']) if (!(name in vars)) delete env[name];
  return env;
}

describe('a plain http:// API address on another machine', () => {
  it('is refused from GENMEDIA_BASE_URL, with a message that says why and how to insist; nothing is sent', async () => {
    const run = await cli(['models', 'ls'], envWith({ GENMEDIA_BASE_URL: remoteUrl, GENMEDIA_API_KEY: KEY }));
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('refusing to send the API key in clear text');
    expect(run.stderr).toContain('--allow-insecure-http');
    expect(run.stderr).toContain('(INSECURE_BASE_URL)');
    expect(received).toEqual([]);
  });

  it('is refused from --base-url, as one JSON error with --json', async () => {
    const run = await cli(['jobs', 'ls', '--json', '--base-url', remoteUrl], envWith({ GENMEDIA_API_KEY: KEY }));
    expect(run.code).toBe(1);
    expect(run.json.error.code).toBe('INSECURE_BASE_URL');
    expect(received).toEqual([]);
  });

  it('is refused when a saved login names it', async () => {
    const configDir = tempDir('saved');
    writeFileSync(path.join(configDir, 'credentials.json'), JSON.stringify({ apiKey: KEY, baseUrl: remoteUrl }));
    const run = await cli(['models', 'ls', '--json'], envWith({ GENMEDIA_CONFIG_DIR: configDir }));
    expect(run.json.error.code).toBe('INSECURE_BASE_URL');
    expect(received).toEqual([]);
  });

  it('is refused by login before the key is read or saved', async () => {
    const configDir = tempDir('login');
    const run = await cli(['login', '--json', '--base-url', remoteUrl], envWith({ GENMEDIA_CONFIG_DIR: configDir }), `${KEY}\n`);
    expect(run.json.error.code).toBe('INSECURE_BASE_URL');
    expect(() => statSync(path.join(configDir, 'credentials.json'))).toThrow();
    expect(received).toEqual([]);
  });

  it('is used with --allow-insecure-http: the user insisted', async () => {
    const run = await cli(['models', 'ls', '--json', '--allow-insecure-http'], envWith({ GENMEDIA_BASE_URL: remoteUrl, GENMEDIA_API_KEY: KEY }));
    expect(run.code, run.stderr).toBe(0);
    expect(run.json).toEqual([]);
    expect(received).toEqual([{ method: 'GET', url: '/v1/models', authorization: `Bearer ${KEY}` }]);
  });
});

describe('addresses that keep the key safe', () => {
  it('loopback over http:// is used as before (localhost, 127.0.0.0/8)', async () => {
    const port = (server.address() as AddressInfo).port;
    for (const host of ['127.0.0.1', 'localhost']) {
      const run = await cli(['models', 'ls', '--json'], envWith({ GENMEDIA_BASE_URL: `http://${host}:${port}`, GENMEDIA_API_KEY: KEY }));
      expect(run.code, `${host}: ${run.stderr}`).toBe(0);
    }
    expect(received.map((r) => r.authorization)).toEqual([`Bearer ${KEY}`, `Bearer ${KEY}`]);
  });

  it('an address that is not http(s) is a usage error, not a request', async () => {
    const run = await cli(['models', 'ls', '--json', '--base-url', 'ftp://api.genmedia.example'], envWith({ GENMEDIA_API_KEY: KEY }));
    expect(run.json.error.code).toBe('INVALID_ARGUMENTS');
  });
});
