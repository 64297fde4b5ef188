/**
 * docs/api-reference.md and the served OpenAPI document describe the same interface: every operation of the document
 * is in the reference's tables of endpoints, every endpoint those tables name is in the document, and the error codes
 * of the reference's table are the document's error enum (src/shared/errors.ts).
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createApp } from '../../../src/api/app';
import { buildOpenApiDocument } from '../../../src/api/openapi';
import { REPO_ROOT } from '../../../src/config';

// The routes register their operations when app.ts imports them.
void createApp;

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head'] as const;

/** What the reference names that the OpenAPI document does not describe: the document itself and its page. */
const ONLY_IN_REFERENCE = ['GET /openapi.json', 'GET /docs'];

const reference = fs.readFileSync(path.join(REPO_ROOT, 'docs', 'api-reference.md'), 'utf8');
const document = buildOpenApiDocument('http://localhost') as unknown as {
  paths: Record<string, Partial<Record<(typeof METHODS)[number], unknown>>>;
  components: { schemas: { Error: { properties: { error: { properties: { code: { enum: string[] } } } } } } };
};

/** The body of a section, from its heading to the next heading of the same level or above. */
function section(heading: string): string {
  const level = /^#+/.exec(heading)![0].length;
  const start = reference.indexOf(`\n${heading}\n`);
  if (start < 0) throw new Error(`docs/api-reference.md has no "${heading}"`);
  const rest = reference.slice(start + heading.length + 2);
  const end = rest.search(new RegExp(`^#{1,${level}} `, 'm'));
  return end < 0 ? rest : rest.slice(0, end);
}

/** The first cells of a section's table rows. */
function firstCells(text: string): string[] {
  return text
    .split('\n')
    .filter((line) => line.startsWith('| ') && !line.startsWith('|---'))
    .map((line) => line.slice(2).split(' | ')[0]);
}

/** `METHOD /path` of every endpoint the reference's tables name (a query string left out). */
function referenceOperations(): string[] {
  const cells = [...firstCells(section('## Endpoints')), ...firstCells(section('## Operator API: `/v1/admin/*`'))];
  return cells.flatMap((cell) => {
    const m = /^`(GET|PUT|POST|DELETE|PATCH|HEAD) (\/[^`?\s]*)[^`]*`/.exec(cell);
    return m ? [`${m[1]} ${m[2]}`] : [];
  });
}

function documentOperations(): string[] {
  return Object.entries(document.paths).flatMap(([p, item]) => METHODS.filter((m) => item[m] !== undefined).map((m) => `${m.toUpperCase()} ${p}`));
}

describe('docs/api-reference.md against the OpenAPI document', () => {
  it('names every operation of the document in its tables of endpoints', () => {
    const named = new Set(referenceOperations());
    expect(documentOperations().filter((op) => !named.has(op))).toEqual([]);
  });

  it('names no endpoint the document does not describe', () => {
    const described = new Set([...documentOperations(), ...ONLY_IN_REFERENCE]);
    const named = referenceOperations();
    expect(named.filter((op) => !described.has(op))).toEqual([]);
    // A table whose rows stopped being read would pass the check above by naming nothing.
    expect(named.length).toBeGreaterThanOrEqual(documentOperations().length);
  });

  it('names each endpoint once', () => {
    const named = referenceOperations();
    expect(named.filter((op, i) => named.indexOf(op) !== i)).toEqual([]);
  });

  it('lists exactly the error codes of the document', () => {
    const listed = new Set(
      firstCells(section('### Error codes')).flatMap((cell) => {
        const m = /^`([A-Z][A-Z0-9_]*)`/.exec(cell);
        return m ? [m[1]] : [];
      }),
    );
    const codes = document.components.schemas.Error.properties.error.properties.code.enum;
    expect(codes.filter((code) => !listed.has(code)), 'codes the reference does not list').toEqual([]);
    expect([...listed].filter((code) => !codes.includes(code)), 'codes the document does not have').toEqual([]);
  });
});
