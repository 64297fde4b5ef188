/**
 * A batch's lines as they are read and checked: in time linear in the bytes, never more bytes than the file cap
 * (whatever the stat said), each line at most a single submit's body, and an item whose job could not start refused
 * before anything is charged.
 */
import type { Account, ApiKey } from '@prisma/client';
import { describe, expect, it } from 'vitest';
import type { ResolvedModel } from '../../../src/catalog/versionResolver';
import { DEFAULT_ROUTING } from '../../../src/catalog/catalogFiles';
import { loadConfig } from '../../../src/config';
import type { SubmitStore } from '../../../src/jobs/submitStore';
import { DomainError } from '../../../src/shared/errors';
import { planItem } from '../../../src/batches/itemAdmission';
import { inlineLines, jsonlLines, MAX_BATCH_LINE_BYTES, validateLines, type JsonlLimits, type RawLine } from '../../../src/batches/validation';

const config = loadConfig({ NODE_ENV: 'test' });
const caller = { account: { id: 'acc_a', discountPercent: 0, plan: 'standard' } as Account, apiKey: { id: 'key_a' } as ApiKey };
const WIDE: JsonlLimits = { maxBytes: 1 << 30, maxLineBytes: 1 << 30 };

function modelWith(properties: Record<string, object>): ResolvedModel {
  return {
    model: { id: 'mdl_1', slug: 'acme/painter', name: 'Painter', providerId: 'acme', capabilityId: 'text-to-image', categoryId: 'image', visibility: 'public', segments: [] },
    version: {
      versionId: 'v1',
      status: 'active',
      inputSchema: { type: 'object', required: ['prompt'], properties: { prompt: { type: 'string' }, ...properties } },
      outputSchema: {},
      pricing: { baseMicroCents: 50_000, unit: 'per_generation' },
      requestsPerMinute: 60,
      requestsPerDay: 1000,
      processingSeconds: 12,
    },
    provider: { id: 'acme', isActive: true, adapter: 'http' },
    routes: [{ providerId: 'acme', adapter: 'http', available: true, upstream: null, listPrice: null }],
    routing: DEFAULT_ROUTING,
  } as ResolvedModel;
}

function storeOf(model: ResolvedModel): SubmitStore {
  return {
    resolveModel: async () => model,
    fileProblems: async () => [],
    countRequest: async () => ({ takeBack: async () => undefined }),
    idempotency: () => {
      throw new Error('not used');
    },
    findAdmission: async () => null,
    voidAdmission: async () => null,
  };
}

async function* chunksOf(text: Buffer, size: number): AsyncIterable<Buffer> {
  for (let at = 0; at < text.length; at += size) yield text.subarray(at, at + size);
}

async function all(lines: AsyncIterable<RawLine> | Iterable<RawLine>): Promise<RawLine[]> {
  const out: RawLine[] = [];
  for await (const line of lines) out.push(line);
  return out;
}

describe('jsonlLines', () => {
  it('reads a 32 MiB line in 64 KiB chunks in time linear in its bytes', async () => {
    const line = Buffer.from(`{"customId":"a","prompt":"${'x'.repeat(32 * 1024 * 1024)}"}\n`);
    const started = performance.now();
    const lines = await all(jsonlLines(chunksOf(line, 64 * 1024), WIDE));
    const ms = performance.now() - started;
    expect(lines).toHaveLength(1);
    expect((lines[0] as { value: { prompt: string } }).value.prompt).toHaveLength(32 * 1024 * 1024);
    // Searching the unfinished line again for every chunk takes about 7 s here; one pass takes well under one.
    expect(ms).toBeLessThan(2000);
  });

  it('keeps lines split across chunks, multi-byte characters split across chunks, blank lines and a last line without newline', async () => {
    const text = Buffer.from('{"a":"é€😀"}\n\n  \n{"b":2}\r\n{"c":3}');
    for (const size of [1, 2, 3, 7, 1000]) {
      expect(await all(jsonlLines(chunksOf(text, size), WIDE))).toEqual([
        { line: 1, value: { a: 'é€😀' } },
        { line: 4, value: { b: 2 } },
        { line: 5, value: { c: 3 } },
      ]);
    }
  });

  it('stops reading once the bytes pass the file cap, however large the object has become since its stat', async () => {
    let read = 0;
    let ended = false;
    async function* endless(): AsyncIterable<Buffer> {
      try {
        // 10 MB, where the stat said 100 kB.
        for (let i = 0; i < 10_000; i++) {
          read += 1024;
          yield Buffer.from(`${'{"k":1}\n'.repeat(128)}`);
        }
      } finally {
        ended = true;
      }
    }
    const err = await all(jsonlLines(endless(), { maxBytes: 100_000, maxLineBytes: 1024 })).then(
      () => 'read to its end',
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(DomainError);
    expect((err as DomainError).code).toBe('BATCH_TOO_LARGE');
    expect((err as DomainError).details).toEqual({ maxFileBytes: 100_000 });
    expect(read).toBeLessThanOrEqual(100_000 + 1024);
    // The source was told to stop (a storage stream is destroyed so).
    expect(ended).toBe(true);
  });

  it('refuses a line over the line cap with its number, without gathering it, and reads on', async () => {
    const big = `{"customId":"big","prompt":"${'y'.repeat(5000)}"}`;
    const text = Buffer.from(`{"n":1}\n${big}\n{"n":3}\n${big}`);
    const lines = await all(jsonlLines(chunksOf(text, 100), { maxBytes: 1 << 20, maxLineBytes: 1000 }));
    expect(lines.map((l) => ('code' in l ? `${l.line}:${l.code}` : `${l.line}:ok`))).toEqual(['1:ok', '2:LINE_TOO_LARGE', '3:ok', '4:LINE_TOO_LARGE']);
  });

  it('reports a line that is not JSON as INVALID_JSON', async () => {
    const lines = await all(jsonlLines(chunksOf(Buffer.from('{"n":1}\nnope\n'), 4), WIDE));
    expect(lines[1]).toMatchObject({ line: 2, code: 'INVALID_JSON' });
  });
});

describe('validateLines', () => {
  const deps = { config, store: storeOf(modelWith({})) };

  it('refuses an inline item over the single-submit body limit with its line number, and accepts the rest', async () => {
    const items = [
      { customId: 'a', model: 'acme/painter', input: { prompt: 'small' } },
      { customId: 'b', model: 'acme/painter', input: { prompt: 'z'.repeat(MAX_BATCH_LINE_BYTES) } },
    ];
    const validated = await validateLines(deps, caller, inlineLines(items));
    expect(validated.accepted.map((a) => a.line)).toEqual([1]);
    expect(validated.rejected).toEqual([expect.objectContaining({ line: 2, code: 'LINE_TOO_LARGE' })]);
  });

  it('refuses a file line over the limit with its number before it is planned', async () => {
    const file = Buffer.from(`${JSON.stringify({ customId: 'a', model: 'acme/painter', input: { prompt: 'z'.repeat(MAX_BATCH_LINE_BYTES) } })}\n`);
    const validated = await validateLines(deps, caller, jsonlLines(chunksOf(file, 65536), { maxBytes: 1 << 30, maxLineBytes: MAX_BATCH_LINE_BYTES }));
    expect(validated.accepted).toEqual([]);
    expect(validated.rejected).toEqual([expect.objectContaining({ line: 1, code: 'LINE_TOO_LARGE' })]);
  });

  it("refuses an item whose job's workflow input would pass Temporal's payload limit, at validation and at admission", async () => {
    // A catalog default can make the planned input larger than the line that asked for it.
    const model = modelWith({ style: { type: 'string', default: 's'.repeat(2 * 1024 * 1024) } });
    const item = { customId: 'a', model: 'acme/painter', input: { prompt: 'small' } };
    const validated = await validateLines({ config, store: storeOf(model) }, caller, inlineLines([item]));
    expect(validated.rejected).toEqual([expect.objectContaining({ line: 1, code: 'LINE_TOO_LARGE' })]);

    const planned = await planItem({ config, store: storeOf(model) }, caller, {
      batchId: 'bat_1', line: 1, customId: 'a', modelSlug: 'acme/painter', version: null, input: { prompt: 'small' }, webhookUrl: null, priority: null, expiresAt: null,
    });
    expect(planned).toMatchObject({ refused: { code: 'LINE_TOO_LARGE' } });
  });

  it("gives an item's job the batch's completion window as a deadline that bounds only its start", async () => {
    const model = modelWith({});
    const item = { batchId: 'bat_1', line: 1, customId: 'a', modelSlug: 'acme/painter', version: null, input: { prompt: 'p' }, webhookUrl: null, priority: null };
    const windowed = await planItem({ config, store: storeOf(model) }, caller, { ...item, expiresAt: new Date('2030-01-01T00:00:00Z') });
    expect(windowed).toMatchObject({ planned: { workflowInput: { deadline: '2030-01-01T00:00:00.000Z', deadlineBoundsStartOnly: true } } });

    const unbounded = await planItem({ config, store: storeOf(model) }, caller, { ...item, expiresAt: null });
    if (!('planned' in unbounded)) throw new Error(`refused: ${unbounded.refused.code}`);
    expect(unbounded.planned.workflowInput).not.toHaveProperty('deadline');
    expect(unbounded.planned.workflowInput).not.toHaveProperty('deadlineBoundsStartOnly');
  });
});
