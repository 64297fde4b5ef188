/**
 * Signing time of C2PA manifests with the reference implementation (@contentauth/c2pa-node), on this machine:
 *  - a 1024×1024 PNG (target: p50 at most 30 ms) and a 10-second 720p H.264 MP4 (target: p50 at most 200 ms), each
 *    SIGNINGS times after one uncounted signing, with an ES256 signing certificate under a throw-away root;
 *  - each signed file read back and validated against that root once, so the figures are of files that verify.
 * The manifest is the one an output carries: claim generator, `c2pa.actions` with `c2pa.created` and the IPTC digital
 * source type trainedAlgorithmicMedia, and a genmedia assertion; no thumbnail (see below).
 * Needs no stack: `node --import tsx bench/provenanceSigning.ts`, or `npm run bench provenance-signing`.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Builder, LocalSigner, Reader } from '@contentauth/c2pa-node';
import sharp from 'sharp';
import { runFfmpeg } from '../src/providers/media/ffmpeg';
import { fmt, printTable, summarize, type Headline } from './stats';

const SIGNINGS = 20;
const PNG_TARGET_MS = 30;
const MP4_TARGET_MS = 200;
// The SDK adds a claim thumbnail by default: it re-encodes the image on every signing and adds its bytes to the file.
const SETTINGS = { builder: { thumbnail: { enabled: false } } };

export interface TestChain {
  chainPem: Buffer;
  keyPem: Buffer;
  rootPem: string;
}

/** An ES256 root and a signing certificate with the key usage and extended key usage C2PA asks of a claim signer. */
export function makeTestChain(dir: string): TestChain {
  const file = (name: string) => path.join(dir, name);
  writeFileSync(
    file('ext.cnf'),
    [
      '[signer]',
      'basicConstraints = critical, CA:FALSE',
      'keyUsage = critical, digitalSignature',
      'extendedKeyUsage = emailProtection',
      'subjectKeyIdentifier = hash',
      'authorityKeyIdentifier = keyid:always',
      '',
    ].join('\n'),
  );
  const openssl = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
  openssl('genpkey', '-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:P-256', '-out', 'root.key');
  openssl('req', '-x509', '-new', '-key', 'root.key', '-sha256', '-days', '30', '-subj', '/CN=genmedia bench root/O=genmedia bench',
    '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign', '-out', 'root.pem');
  openssl('genpkey', '-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:P-256', '-out', 'signer.key');
  openssl('req', '-new', '-key', 'signer.key', '-subj', '/CN=genmedia bench signer/O=genmedia bench', '-out', 'signer.csr');
  openssl('x509', '-req', '-in', 'signer.csr', '-CA', 'root.pem', '-CAkey', 'root.key', '-CAcreateserial', '-sha256', '-days', '30',
    '-extfile', 'ext.cnf', '-extensions', 'signer', '-out', 'signer.pem');
  const rootPem = readFileSync(file('root.pem'), 'utf8');
  return { chainPem: Buffer.concat([readFileSync(file('signer.pem')), Buffer.from(rootPem)]), keyPem: readFileSync(file('signer.key')), rootPem };
}

function manifestDefinition(model: string) {
  return {
    claim_generator_info: [{ name: 'genmedia', version: '0.1.0' }],
    assertions: [
      {
        label: 'c2pa.actions',
        data: {
          actions: [
            {
              action: 'c2pa.created',
              digitalSourceType: 'http://cv.iptc.org/newscodes/digitalsourcetype/trainedAlgorithmicMedia',
              softwareAgent: { name: model, version: '1' },
            },
          ],
        },
      },
      { label: 'io.genmedia.output', data: { jobId: 'bench', model, route: 'bench', createdAt: new Date().toISOString() } },
    ],
  };
}

/** Noise over a gradient: a PNG that compresses as badly as a detailed generated picture (about 3 MB). */
export async function makePng(): Promise<Buffer> {
  const size = 1024;
  const pixels = Buffer.alloc(size * size * 3);
  let seed = 42;
  for (let i = 0; i < pixels.length; i++) {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    pixels[i] = ((i % (size * 3)) / 12 + ((seed >> 16) % 16)) & 0xff;
  }
  return sharp(pixels, { raw: { width: size, height: size, channels: 3 } }).png().toBuffer();
}

/** 10 seconds of 1280×720 at 24 fps, encoded as the built-in video provider encodes (libx264, veryfast, faststart). */
export async function makeMp4(dir: string): Promise<Buffer> {
  const output = path.join(dir, 'bench.mp4');
  const args = ['-y', '-f', 'lavfi', '-i', 'testsrc2=size=1280x720:rate=24', '-t', '10', '-c:v', 'libx264', '-preset', 'veryfast',
    '-crf', '23', '-pix_fmt', 'yuv420p', '-movflags', '+faststart', '-an', output];
  await runFfmpeg(args, { signal: new AbortController().signal });
  return readFileSync(output);
}

interface Measured {
  name: string;
  bytes: number;
  signedBytes: number;
  samples: number[];
  state: string;
}

async function measure(name: string, input: Buffer, mimeType: string, chain: TestChain): Promise<Measured> {
  const signer = LocalSigner.newSigner(chain.chainPem, chain.keyPem, 'es256');
  const signOnce = () => {
    const output: { buffer: Buffer | null } = { buffer: null };
    Builder.withJson(manifestDefinition('bench/model'), SETTINGS).sign(signer, { buffer: input, mimeType }, output);
    return output.buffer!;
  };
  const signed = signOnce();
  const samples: number[] = [];
  for (let i = 0; i < SIGNINGS; i++) {
    const started = process.hrtime.bigint();
    signOnce();
    samples.push(Number(process.hrtime.bigint() - started) / 1e6);
  }
  const reader = await Reader.fromAsset({ buffer: signed, mimeType }, { verify: { verify_trust: true }, trust: { trust_anchors: chain.rootPem } });
  const state = reader?.json().validation_state ?? 'no manifest';
  return { name, bytes: input.length, signedBytes: signed.length, samples, state };
}

export async function provenanceSigningBench(): Promise<Headline[]> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'genmedia-bench-c2pa-'));
  try {
    const chain = makeTestChain(dir);
    const png = await measure('1024×1024 PNG', await makePng(), 'image/png', chain);
    const mp4 = await measure('10 s 720p MP4', await makeMp4(dir), 'video/mp4', chain);
    console.log(`C2PA signing (@contentauth/c2pa-node, ES256, no thumbnail), ${SIGNINGS} signings each after one uncounted:`);
    printTable([
      ['file', 'bytes', 'signed bytes', 'p50', 'p95', 'max', 'read back'],
      ...[png, mp4].map((m) => {
        const s = summarize(m.samples);
        return [m.name, String(m.bytes), String(m.signedBytes), fmt(s.p50), fmt(s.p95), fmt(s.max), m.state];
      }),
    ]);
    const pngP50 = summarize(png.samples).p50;
    const mp4P50 = summarize(mp4.samples).p50;
    return [
      { target: `signing a 1024×1024 PNG, p50 (at most ${PNG_TARGET_MS} ms)`, measured: fmt(pngP50), met: pngP50 <= PNG_TARGET_MS && png.state === 'Trusted' },
      { target: `signing a 10 s 720p MP4, p50 (at most ${MP4_TARGET_MS} ms)`, measured: fmt(mp4P50), met: mp4P50 <= MP4_TARGET_MS && mp4.state === 'Trusted' },
    ];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (require.main === module) {
  provenanceSigningBench().then(
    (headlines) => {
      printTable([['target', 'measured', 'met'], ...headlines.map((h) => [h.target, h.measured, h.met ? 'yes' : 'NO'])]);
    },
    (err) => {
      console.error(err);
      process.exit(1);
    },
  );
}
