/**
 * `npm run bench provenance`: what Content Credentials cost, measured side by side in one run.
 *  - Signing through the service's own path (src/provenance/c2pa.ts, the file signer behind the ContentSigner
 *    interface, files on disk as the worker signs them): a 1024×1024 PNG (target p50 at most 30 ms) and a 10-second
 *    720p MP4 (target p50 at most 200 ms), SIGNINGS times each after one uncounted signing.
 *  - Submit to completed of a built-in 1024×1024 image job (Prefer: wait), with signing on and off: two accounts of one
 *    stack, one with provenance switched off, their jobs interleaved (target: on at most 5% slower at p50).
 */
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { signAsset } from '../src/provenance/c2pa';
import { manifestDefinition } from '../src/provenance/manifest';
import { createFileSigner, type ContentSigner } from '../src/provenance/signer';
import { post } from '../test/support/api';
import { createTestAccount } from '../test/support/accounts';
import { startTestStack } from '../test/support/stack';
import { makeMp4, makePng, makeTestChain } from './provenanceSigning';
import { fmt, printTable, summarize, type Headline } from './stats';

const SIGNINGS = 20;
const JOBS_EACH = 30;
const PNG_TARGET_MS = 30;
const MP4_TARGET_MS = 200;
const SLOWER_AT_MOST = 1.05;
const MODEL = 'pixelforge/forge-pro/text-to-image';

async function signingSamples(signer: ContentSigner, dir: string, name: string, bytes: Buffer, contentType: string): Promise<{ samples: number[]; grew: number }> {
  const input = path.join(dir, name);
  writeFileSync(input, bytes);
  const facts = { jobId: 'bench', output: 1, modelSlug: 'bench/model', version: 'v1', route: { provider: 'bench' }, signedAt: new Date() };
  const definition = manifestDefinition(facts, { name: 'genmedia', version: 'bench' }, contentType);
  const outputPath = path.join(dir, `signed-${name}`);
  const once = () => signAsset({ signer, definition, inputPath: input, contentType, outputPath });
  await once();
  const samples: number[] = [];
  for (let i = 0; i < SIGNINGS; i++) {
    const started = process.hrtime.bigint();
    await once();
    samples.push(Number(process.hrtime.bigint() - started) / 1e6);
  }
  return { samples, grew: statSync(outputPath).size - bytes.length };
}

export async function provenanceBench(): Promise<Headline[]> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'genmedia-bench-provenance-'));
  try {
    const chain = makeTestChain(dir);
    const signer = createFileSigner({ certificateChainPem: chain.chainPem.toString(), privateKeyPem: chain.keyPem.toString() });
    const png = await signingSamples(signer, dir, 'bench.png', await makePng(), 'image/png');
    const mp4 = await signingSamples(signer, dir, 'bench.mp4', await makeMp4(dir), 'video/mp4');
    console.log(`Content Credentials signing through src/provenance (ES256 file signer, no thumbnail), ${SIGNINGS} signings each after one uncounted:`);
    printTable([
      ['file', 'bytes added', 'p50', 'p95', 'max'],
      ...[['1024×1024 PNG', png], ['10 s 720p MP4', mp4]].map(([name, m]) => {
        const { samples, grew } = m as typeof png;
        const s = summarize(samples);
        return [name as string, String(grew), fmt(s.p50), fmt(s.p95), fmt(s.max)];
      }),
    ]);

    writeFileSync(path.join(dir, 'chain.pem'), chain.chainPem);
    writeFileSync(path.join(dir, 'signer.key'), chain.keyPem);
    writeFileSync(path.join(dir, 'root.pem'), chain.rootPem);
    const stack = await startTestStack({
      providers: ['pixelforge'],
      env: { PROVENANCE_CERT_CHAIN: path.join(dir, 'chain.pem'), PROVENANCE_PRIVATE_KEY: path.join(dir, 'signer.key') },
    });
    const on: number[] = [];
    const off: number[] = [];
    try {
      const signed = await createTestAccount(stack.prisma, { creditsMicroCents: 100_000_000n });
      const unsigned = await createTestAccount(stack.prisma, { creditsMicroCents: 100_000_000n });
      await stack.prisma.account.update({ where: { id: unsigned.accountId }, data: { provenanceEnabled: false } });
      const submitToCompleted = async (apiKey: string, n: number) => {
        const started = process.hrtime.bigint();
        const res = await post(`${stack.url}/v1/jobs/submit`, apiKey, { model: MODEL, input: { prompt: `bench lighthouse ${n}`, size: 'square_hd' } }, { Prefer: 'wait=60' });
        if (res.status !== 201 || res.body.status !== 'completed') throw new Error(`job ${n} ended ${res.status} ${JSON.stringify(res.body).slice(0, 200)}`);
        return Number(process.hrtime.bigint() - started) / 1e6;
      };
      // One warm-up each, then on and off alternately, so that drift on a shared machine falls on both alike.
      await submitToCompleted(signed.apiKey, -1);
      await submitToCompleted(unsigned.apiKey, -2);
      for (let n = 0; n < JOBS_EACH; n++) {
        on.push(await submitToCompleted(signed.apiKey, n));
        off.push(await submitToCompleted(unsigned.apiKey, n));
      }
    } finally {
      await stack.stop();
    }
    const onStats = summarize(on);
    const offStats = summarize(off);
    console.log(`\nSubmit to completed of a 1024×1024 built-in image job (Prefer: wait), ${JOBS_EACH} jobs each, alternating:`);
    printTable([
      ['provenance', 'p50', 'p95', 'max'],
      ['on (signed)', fmt(onStats.p50), fmt(onStats.p95), fmt(onStats.max)],
      ['off (account switched off)', fmt(offStats.p50), fmt(offStats.p95), fmt(offStats.max)],
    ]);
    const pngP50 = summarize(png.samples).p50;
    const mp4P50 = summarize(mp4.samples).p50;
    const ratio = onStats.p50 / offStats.p50;
    return [
      { target: `signing a 1024×1024 PNG, p50 (at most ${PNG_TARGET_MS} ms)`, measured: fmt(pngP50), met: pngP50 <= PNG_TARGET_MS },
      { target: `signing a 10 s 720p MP4, p50 (at most ${MP4_TARGET_MS} ms)`, measured: fmt(mp4P50), met: mp4P50 <= MP4_TARGET_MS },
      { target: 'submit to completed with signing on against off, p50 (at most 1.05x)', measured: `${ratio.toFixed(3)}x`, met: ratio <= SLOWER_AT_MOST },
    ];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
