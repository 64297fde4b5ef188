/**
 * The API runs with its V8 options (API_NODE_OPTIONS) however it is started: the image's command, docker-compose.yml,
 * `npm run api`, and the supervisor of `npm run dev` and `npm run cluster`, from the sources or built. V8 reads them
 * only on the command line, so each way of starting it must carry them.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';

const REPO_ROOT = path.resolve(__dirname, '../../..');
const app = require('../../../scripts/lib/app') as {
  API_NODE_OPTIONS: string[];
  apiService: (env: NodeJS.ProcessEnv, logDir: string, name?: string, options?: { built?: boolean }) => { spec: { command: string; args: string[] } };
  devApiService: (env: NodeJS.ProcessEnv, logDir: string, name?: string, options?: { built?: boolean; hmrPort?: number }) => { spec: { command: string; args: string[] } };
};
const { API_NODE_OPTIONS } = app;

const read = (file: string) => fs.readFileSync(path.join(REPO_ROOT, file), 'utf8');

describe("the API's V8 options", () => {
  it('cap the young generation and the heap growth', () => {
    expect(API_NODE_OPTIONS).toEqual(expect.arrayContaining([expect.stringMatching(/^--max-semi-space-size=\d+$/), expect.stringMatching(/^--heap-growing-percent=\d+$/)]));
  });

  it("are in the image's command", () => {
    const cmd = /^CMD (\[.*\])$/m.exec(read('Dockerfile'))?.[1];
    expect(cmd && JSON.parse(cmd)).toEqual(['node', ...API_NODE_OPTIONS, 'dist/src/api/server.js']);
  });

  it("are in docker-compose.yml's API service", () => {
    const compose = parse(read('docker-compose.yml'), { merge: true }) as { services: Record<string, { command?: string[] }> };
    expect(compose.services.api.command).toEqual(['node', ...API_NODE_OPTIONS, 'dist/src/api/server.js']);
  });

  it('are in npm run api', () => {
    const scripts = JSON.parse(read('package.json')).scripts as Record<string, string>;
    expect(scripts.api).toBe(['node', ...API_NODE_OPTIONS, '--import tsx src/api/server.ts'].join(' '));
  });

  it.each([false, true])('are given by the supervisor of the chaos runs (built: %s), before the entry', (built) => {
    const { command, args } = app.apiService({}, '/tmp', 'api', { built }).spec;
    expect(command).toBe(process.execPath);
    expect(args.slice(0, API_NODE_OPTIONS.length)).toEqual(API_NODE_OPTIONS);
    expect(args.at(-1)).toMatch(built ? /dist\/src\/api\/server\.js$/ : /src\/api\/server\.ts$/);
  });

  it.each([false, true])('are given by npm run dev and npm run cluster (built: %s), before their entry', (built) => {
    const { command, args } = app.devApiService({}, '/tmp', 'api', { built, ...(built ? {} : { hmrPort: 24678 }) }).spec;
    expect(command).toBe(process.execPath);
    expect(args.slice(0, API_NODE_OPTIONS.length)).toEqual(API_NODE_OPTIONS);
    const entry = args.findIndex((arg) => arg.endsWith(path.join('scripts', 'devApi.js')));
    expect(entry).toBeGreaterThanOrEqual(API_NODE_OPTIONS.length);
    expect(args.slice(entry + 1)).toEqual(built ? ['--built'] : ['--console-sources', '24678']);
  });
});
