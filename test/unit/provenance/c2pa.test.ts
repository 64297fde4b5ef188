import { execFileSync } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readManifest, signAsset } from '../../../src/provenance/c2pa';
import { manifestDefinition, opensManifestStore, TRAINED_ALGORITHMIC_MEDIA, type ManifestStore } from '../../../src/provenance/manifest';
import { GENMEDIA_ASSERTION } from '../../../src/shared/provenance';
import { SignerConfigError } from '../../../src/lib/signingKeys';
import { createFileSigner, type ContentSigner } from '../../../src/provenance/signer';
import { createChain } from '../../support/provenanceChain';

let dir: string;
let ours: { signer: ContentSigner; rootPem: string };
let theirs: { signer: ContentSigner; rootPem: string };
const files: Record<string, string> = {};

function chain(name: string, algorithm: 'es256' | 'ed25519' = 'es256') {
  const made = createChain(path.join(dir, name), { name, algorithm });
  const signer = createFileSigner({ certificateChainPem: fs.readFileSync(made.chainFile, 'utf8'), privateKeyPem: fs.readFileSync(made.keyFile, 'utf8') });
  return { signer, rootPem: fs.readFileSync(made.rootFile, 'utf8') };
}

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'genmedia-c2pa-'));
  ours = chain('ours');
  theirs = chain('theirs');
  const pixels = { raw: { width: 32, height: 24, channels: 3 as const } };
  const raw = Buffer.alloc(32 * 24 * 3, 90);
  fs.writeFileSync((files['image/png'] = path.join(dir, 'a.png')), await sharp(raw, pixels).png().toBuffer());
  fs.writeFileSync((files['image/jpeg'] = path.join(dir, 'a.jpg')), await sharp(raw, pixels).jpeg().toBuffer());
  fs.writeFileSync((files['image/webp'] = path.join(dir, 'a.webp')), await sharp(raw, pixels).webp().toBuffer());
  for (const [type, codec, name] of [['video/mp4', 'libx264', 'a.mp4'], ['video/webm', 'libvpx-vp9', 'a.webm']]) {
    files[type] = path.join(dir, name);
    execFileSync('ffmpeg', ['-y', '-loglevel', 'error', '-f', 'lavfi', '-i', 'testsrc2=size=64x48:rate=10', '-t', '1', '-c:v', codec, '-pix_fmt', 'yuv420p', files[type]]);
  }
});

afterAll(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

const FACTS = { jobId: 'job_1', output: 1, modelSlug: 'genmedia/flux', version: 'v1', route: { provider: 'local' }, signedAt: new Date('2026-11-27T06:00:00Z') };
const GENERATOR = { name: 'genmedia', version: '0.1.0' };

async function sign(contentType: string, signer: ContentSigner, input = files[contentType], facts = FACTS) {
  const outputPath = path.join(dir, `signed-${Math.random().toString(36).slice(2)}${path.extname(input)}`);
  const signed = await signAsset({ signer, definition: manifestDefinition(facts, GENERATOR, contentType), inputPath: input, contentType, outputPath });
  return { ...signed, outputPath };
}

function active(store: ManifestStore) {
  return store.manifests[store.active_manifest!];
}

describe('signing outputs with the C2PA reference implementation', () => {
  it.each(['image/png', 'image/jpeg', 'image/webp', 'video/mp4'])('embeds a manifest into %s that validates against our root', async (contentType) => {
    const signed = await sign(contentType, ours.signer);

    expect(signed.embedded).toBe(true);
    expect(fs.statSync(signed.outputPath).size).toBeGreaterThan(fs.statSync(files[contentType]).size);
    const read = await readManifest({ path: signed.outputPath, mimeType: contentType }, { trustAnchorsPem: ours.rootPem });
    expect(read.kind).toBe('store');
    const store = (read as { store: ManifestStore }).store;
    expect(store.validation_state).toBe('Trusted');
    const manifest = active(store);
    expect(manifest.claim_generator_info?.[0]).toMatchObject(GENERATOR);
    const actions = manifest.assertions!.find((a) => a.label.startsWith('c2pa.actions'))!.data as { actions: Record<string, unknown>[] };
    expect(actions.actions[0]).toMatchObject({ action: 'c2pa.created', digitalSourceType: TRAINED_ALGORITHMIC_MEDIA, softwareAgent: { name: 'genmedia/flux', version: 'v1' } });
    expect(manifest.assertions!.find((a) => a.label === GENMEDIA_ASSERTION)!.data).toEqual({
      jobId: 'job_1',
      output: 1,
      model: 'genmedia/flux',
      version: 'v1',
      route: { provider: 'local' },
      createdAt: '2026-11-27T06:00:00.000Z',
    });
  });

  it('keeps WebM bytes as they are and answers a sidecar manifest that validates them', async () => {
    const signed = await sign('video/webm', ours.signer);

    expect(signed.embedded).toBe(false);
    expect(fs.readFileSync(signed.outputPath).equals(fs.readFileSync(files['video/webm']))).toBe(true);
    const read = await readManifest({ path: signed.outputPath, mimeType: 'video/webm' }, { sidecar: signed.manifest, trustAnchorsPem: ours.rootPem });
    expect(read.kind === 'store' && read.store.validation_state).toBe('Trusted');
    const flipped = fs.readFileSync(signed.outputPath);
    flipped[flipped.length - 20] ^= 1;
    const damaged = await readManifest({ buffer: flipped, mimeType: 'video/webm' }, { sidecar: signed.manifest, trustAnchorsPem: ours.rootPem });
    expect(damaged.kind === 'store' && damaged.store.validation_state).toBe('Invalid');
  });

  it('tells a sidecar manifest store by its first bytes from any other file', async () => {
    const signed = await sign('video/webm', ours.signer);
    expect(opensManifestStore(signed.manifest.subarray(0, 32))).toBe(true);
    expect(opensManifestStore(fs.readFileSync(files['video/webm']).subarray(0, 32))).toBe(false);
    expect(opensManifestStore(fs.readFileSync(files['image/png']).subarray(0, 32))).toBe(false);
    expect(opensManifestStore(signed.manifest.subarray(0, 19))).toBe(false);
  });

  it.each(['image/png', 'video/mp4'])('reports a %s with one byte of its content changed as invalid', async (contentType) => {
    const signed = await sign(contentType, ours.signer);
    const bytes = fs.readFileSync(signed.outputPath);
    bytes[bytes.length - 30] ^= 1;

    const read = await readManifest({ buffer: bytes, mimeType: contentType }, { trustAnchorsPem: ours.rootPem });

    expect(read.kind === 'store' ? read.store.validation_state : read.kind).not.toMatch(/^(Valid|Trusted)$/);
  });

  it('tells a manifest of another chain (valid, not ours) from ours, and a file without one', async () => {
    const foreign = await sign('image/png', theirs.signer);

    const read = await readManifest({ path: foreign.outputPath, mimeType: 'image/png' }, { trustAnchorsPem: ours.rootPem });
    expect(read.kind === 'store' && read.store.validation_state).toBe('Valid');
    expect(await readManifest({ path: files['image/png'], mimeType: 'image/png' }, { trustAnchorsPem: ours.rootPem })).toEqual({ kind: 'none' });
  });

  it("keeps an upstream's manifest as a parentOf ingredient of ours", async () => {
    const upstream = await sign('image/png', theirs.signer, files['image/png'], { ...FACTS, jobId: 'upstream' });

    const signed = await sign('image/png', ours.signer, upstream.outputPath);

    expect(signed.keptUpstreamManifest).toBe(true);
    const read = await readManifest({ path: signed.outputPath, mimeType: 'image/png' }, { trustAnchorsPem: ours.rootPem });
    const store = (read as { store: ManifestStore }).store;
    expect(Object.keys(store.manifests)).toHaveLength(2);
    expect(active(store).ingredients).toEqual([expect.objectContaining({ relationship: 'parentOf', active_manifest: expect.any(String) })]);
  });

  it('signs through the ContentSigner interface alone, as a remote or HSM signer would', async () => {
    const remote: ContentSigner = { algorithm: ours.signer.algorithm, certificateChainPem: ours.signer.certificateChainPem, sign: (data) => ours.signer.sign(data) };

    for (const contentType of ['image/png', 'video/mp4']) {
      const signed = await sign(contentType, remote);
      const read = await readManifest({ path: signed.outputPath, mimeType: contentType }, { trustAnchorsPem: ours.rootPem });
      expect(read.kind === 'store' && read.store.validation_state).toBe('Trusted');
    }
  });

  it('signs with an Ed25519 key', async () => {
    const ed = chain('ed', 'ed25519');
    expect(ed.signer.algorithm).toBe('ed25519');

    const signed = await sign('image/jpeg', ed.signer);

    const read = await readManifest({ path: signed.outputPath, mimeType: 'image/jpeg' }, { trustAnchorsPem: ed.rootPem });
    expect(read.kind === 'store' && read.store.validation_state).toBe('Trusted');
  });
});

describe('the file signer', () => {
  it('refuses a key that is not the first certificate\'s', () => {
    const chainPem = fs.readFileSync(path.join(dir, 'ours/chain.pem'), 'utf8');
    expect(() => createFileSigner({ certificateChainPem: chainPem, privateKeyPem: fs.readFileSync(path.join(dir, 'theirs/signer.key'), 'utf8') })).toThrow(
      /does not belong to the first certificate/,
    );
  });

  it('refuses an RSA key and a chain without certificates', () => {
    const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs8', format: 'pem' }) as string;
    const chainPem = fs.readFileSync(path.join(dir, 'ours/chain.pem'), 'utf8');
    expect(() => createFileSigner({ certificateChainPem: chainPem, privateKeyPem: rsa })).toThrow(SignerConfigError);
    expect(() => createFileSigner({ certificateChainPem: 'nothing', privateKeyPem: fs.readFileSync(path.join(dir, 'ours/signer.key'), 'utf8') })).toThrow(
      /no PEM certificate/,
    );
  });
});
