/**
 * The SDK is generated from the API's OpenAPI document: its copy of the document and its types must be what
 * `npm run sdk:generate` writes today, and the package must build as it would be published.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { generateSdkSources } from '../../../clients/typescript/scripts/sources';

const SDK_DIR = path.resolve('clients/typescript');

describe('@genmedia/client', () => {
  it('is generated from the current OpenAPI document (else: npm run sdk:generate)', async () => {
    const files = await generateSdkSources();
    expect(Object.keys(files).sort()).toEqual(['openapi.json', 'src/generated/openapi.ts']);
    for (const [relative, text] of Object.entries(files)) {
      const committed = readFileSync(path.join(SDK_DIR, relative), 'utf8');
      expect(committed === text, `clients/typescript/${relative} is out of date: run npm run sdk:generate`).toBe(true);
    }
    expect(files['src/generated/openapi.ts']).toContain('"/v1/jobs/{jobId}/events"');
  });

  it('builds into CommonJS with declarations, and the built package exports the client', () => {
    // Inside the package, so the built files resolve its dependencies as an installed copy would.
    const outDir = mkdtempSync(path.join(SDK_DIR, '.build-'));
    try {
      execFileSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', 'tsconfig.build.json', '--outDir', outDir], { cwd: SDK_DIR });
      const built = require(path.join(outDir, 'index.js'));
      expect(typeof built.Genmedia).toBe('function');
      expect(typeof built.verifyWebhook).toBe('function');
      expect(new built.GenmediaError('x', { code: 'JOB_NOT_FOUND', status: 404 })).toMatchObject({ code: 'JOB_NOT_FOUND', status: 404 });
      expect(readFileSync(path.join(outDir, 'index.d.ts'), 'utf8')).toContain('Genmedia');
      const manifest = JSON.parse(readFileSync(path.join(SDK_DIR, 'package.json'), 'utf8'));
      expect(manifest).toMatchObject({ name: '@genmedia/client', main: './dist/index.js', types: './dist/index.d.ts' });
    } finally {
      rmSync(outDir, { recursive: true, force: true });
    }
  }, 120_000);
});
