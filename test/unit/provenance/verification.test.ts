/**
 * The check of a file and the report of a stored output: structure refused before the library sees the file, a time
 * limit that ends the verifier process, a cap per account and per process, and a stored output's report read once.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ReadOutcome } from '../../../src/provenance/c2pa';
import { createProvenanceService, MediaStructureRefused } from '../../../src/provenance/service';
import { createVerificationGate, VerificationsBusy } from '../../../src/provenance/verificationGate';
import { createVerifierPool, VerificationTimedOut, type VerifierPool } from '../../../src/provenance/verifierPool';

let dir: string;
const FTYP = Buffer.from('000000186674797069736f6d0000020069736f6d69736f32', 'hex');
const EMPTY_BOX = Buffer.from('0000000866726565', 'hex');

function crafted(name: string, boxes: number): string {
  const file = path.join(dir, name);
  fs.writeFileSync(file, Buffer.concat([FTYP, ...Array.from({ length: boxes }, () => EMPTY_BOX)]));
  return file;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** The pids of this process's verifier children. */
function verifierPids(): number[] {
  const pids: number[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (parent === process.pid && fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes('verifierProcess')) pids.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return pids;
}

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'genmedia-verification-'));
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const noPrisma = { job: { findUnique: async () => null } } as never;
const noStorage = { outputsBucket: 'outputs', getStream: async () => null, presignGet: async () => 'http://signed' } as never;

describe('the check of a file', () => {
  it('refuses an MP4 of 100,000 empty boxes before the C2PA library reads it', async () => {
    let reads = 0;
    const verifier: VerifierPool = {
      read: async () => {
        reads += 1;
        return { kind: 'none' };
      },
      close() {},
    };
    const service = createProvenanceService({ prisma: noPrisma, storage: noStorage, outputUrlTtlSeconds: 60, verifier });
    const file = crafted('boxes.mp4', 100_000);
    const started = performance.now();
    const refused = await service.verify('acct', { path: file, head: fs.readFileSync(file).subarray(0, 32) }).catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(MediaStructureRefused);
    expect((refused as MediaStructureRefused).refusal).toEqual({ limit: 'topLevel', max: 10_000 });
    expect(performance.now() - started).toBeLessThan(2_000);
    expect(reads).toBe(0);
  });

  it('ends a read that passes its time limit by killing its verifier process, and reads the next in a new one', async () => {
    const pool = createVerifierPool({ timeLimitMs: 1_000 });
    try {
      // 40,000 boxes take the library many seconds: past the limit, the process is killed, not left to spin.
      const slow = crafted('slow.mp4', 40_000);
      const started = performance.now();
      const refused = await pool.read({ path: slow, mimeType: 'video/mp4' }, {}).catch((err: unknown) => err);
      expect(refused).toBeInstanceOf(VerificationTimedOut);
      expect(performance.now() - started).toBeLessThan(15_000);
      await new Promise((r) => setTimeout(r, 200));
      expect(verifierPids()).toEqual([]);
      const small = crafted('small.mp4', 10);
      await expect(pool.read({ path: small, mimeType: 'video/mp4' }, {})).resolves.toEqual({ kind: 'none' });
      const [pid] = verifierPids();
      expect(pid).toBeGreaterThan(0);
      // Kept for the next read, then ended with the pool.
      await expect(pool.read({ path: small, mimeType: 'video/mp4' }, {})).resolves.toEqual({ kind: 'none' });
      expect(verifierPids()).toEqual([pid]);
      pool.close();
      await new Promise((r) => setTimeout(r, 200));
      expect(alive(pid)).toBe(false);
    } finally {
      pool.close();
    }
  }, 60_000);
});

describe('the verification gate', () => {
  it('admits at most perAccount checks of one account and perProcess of all, until they are released', () => {
    const gate = createVerificationGate({ perProcess: 3, perAccount: 2 });
    const a1 = gate.admit('a');
    gate.admit('a');
    expect(() => gate.admit('a')).toThrow(VerificationsBusy);
    expect(() => gate.admit('a')).toThrow(expect.objectContaining({ scope: 'account', max: 2 }));
    gate.admit('b');
    expect(() => gate.admit('c')).toThrow(expect.objectContaining({ scope: 'process', max: 3 }));
    a1();
    a1();
    const c = gate.admit('c');
    expect(() => gate.admit('a')).toThrow(expect.objectContaining({ scope: 'process' }));
    c();
    expect(gate.admit('a')).toBeTypeOf('function');
  });
});

describe("a stored output's report", () => {
  it('is read once and served from memory on every later call, after the job is looked up each time', async () => {
    let downloads = 0;
    let reads = 0;
    let lookups = 0;
    const output = { key: 'job_1/output-1.png', contentType: 'image/png', sizeBytes: 8 };
    const prisma = {
      job: {
        findUnique: async () => {
          lookups += 1;
          return { accountId: 'acct', status: 'completed', outputs: [output], outputsDeletedAt: null };
        },
      },
    } as never;
    const storage = {
      outputsBucket: 'outputs',
      getStream: async () => {
        downloads += 1;
        return Readable.from([Buffer.from('89504e470d0a1a0a', 'hex')]);
      },
      presignGet: async () => 'http://signed',
    } as never;
    const verifier: VerifierPool = {
      read: async (): Promise<ReadOutcome> => {
        reads += 1;
        return { kind: 'none' };
      },
      close() {},
    };
    const service = createProvenanceService({ prisma, storage, outputUrlTtlSeconds: 60, verifier });
    const first = await service.outputProvenance('acct', 'job_1', 1);
    for (let i = 0; i < 5; i++) expect(await service.outputProvenance('acct', 'job_1', 1)).toEqual(first);
    expect({ downloads, reads, lookups }).toEqual({ downloads: 1, reads: 1, lookups: 6 });
    await expect(service.outputProvenance('other', 'job_1', 1)).rejects.toMatchObject({ code: 'JOB_NOT_FOUND' });
  });
});
