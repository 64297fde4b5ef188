/**
 * The C2PA reference implementation (@contentauth/c2pa-node, the Rust `c2pa` crate) behind two calls: sign a file
 * with a manifest, read the manifest store of a file. Nothing else in the service touches the library.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { Builder, CallbackSigner, LocalSigner, Reader } from '@contentauth/c2pa-node';
import { inProcessKeyOf, type ContentSigner } from './signer';
import type { ManifestDefinition, ManifestStore } from './manifest';

/** Types whose files carry the manifest inside them; any other output gets a sidecar `.c2pa` file (WebM: Matroska has no C2PA binding the library writes). */
const EMBEDDABLE = new Set(['image/png', 'image/jpeg', 'image/webp', 'video/mp4']);

export function embedsManifest(contentType: string): boolean {
  return EMBEDDABLE.has(contentType);
}

/** No claim thumbnail: it would re-encode every image on each signing and grow the file (docs/provenance.md). */
const BUILDER_SETTINGS = { builder: { thumbnail: { enabled: false } } };

/** Room for the COSE signature: the certificates, the signature, and a time-stamp token when one is asked for. */
function reserveSize(signer: ContentSigner): number {
  return signer.certificateChainPem.length + 2048 + (signer.timestampAuthorityUrl ? 8192 : 0);
}

/** Images are signed in memory (faster than through files); videos, which may be hundreds of megabytes, on disk. */
const IN_MEMORY = new Set(['image/png', 'image/jpeg', 'image/webp']);

const localSigners = new WeakMap<ContentSigner, LocalSigner>();
const callbackSigners = new WeakMap<ContentSigner, CallbackSigner>();

/**
 * The library's own signer, for a key in this process. It signs synchronously, on the event loop: used for images
 * only, whose signing takes milliseconds; a video (up to hundreds of megabytes to hash) goes through the callback
 * signer, which the library runs off the event loop, so heartbeats go on meanwhile.
 */
function localSigner(signer: ContentSigner): LocalSigner | undefined {
  const key = inProcessKeyOf(signer);
  if (!key) return undefined;
  let made = localSigners.get(signer);
  if (!made) {
    made = LocalSigner.newSigner(Buffer.from(signer.certificateChainPem), Buffer.from(key.privateKeyPem), signer.algorithm, signer.timestampAuthorityUrl);
    localSigners.set(signer, made);
  }
  return made;
}

function asyncSigner(signer: ContentSigner): CallbackSigner {
  let made = callbackSigners.get(signer);
  if (!made) {
    made = callbackSigner(signer);
    callbackSigners.set(signer, made);
  }
  return made;
}

function callbackSigner(signer: ContentSigner): CallbackSigner {
  return CallbackSigner.newSigner(
    {
      alg: signer.algorithm,
      certs: [Buffer.from(signer.certificateChainPem)],
      reserveSize: reserveSize(signer),
      ...(signer.timestampAuthorityUrl ? { tsaUrl: signer.timestampAuthorityUrl } : {}),
      directCoseHandling: false,
    },
    (data) => signer.sign(data),
  );
}

export interface SignedAsset {
  /** True when the manifest is inside the file at `outputPath`; false when `manifest` is a sidecar to store beside it. */
  embedded: boolean;
  /** The manifest store's bytes (application/c2pa). */
  manifest: Buffer;
  /** True when the input carried a manifest of its own, now an ingredient (parentOf) of ours. */
  keptUpstreamManifest: boolean;
}

/**
 * Signs `inputPath` into `outputPath`. A manifest the input already carries (an upstream's) becomes a `parentOf`
 * ingredient of ours, so that the chain keeps who made the file. For a type the library cannot embed into, the
 * output is the input's bytes and the manifest is returned as a sidecar.
 */
export async function signAsset(args: {
  signer: ContentSigner;
  definition: ManifestDefinition;
  inputPath: string;
  contentType: string;
  outputPath: string;
}): Promise<SignedAsset> {
  const { contentType, inputPath } = args;
  const embedded = embedsManifest(contentType);
  const builder = Builder.withJson(args.definition as never, BUILDER_SETTINGS as never);
  if (!embedded) builder.setNoEmbed(true);
  const input: Asset = IN_MEMORY.has(contentType) ? { buffer: await readFile(inputPath), mimeType: contentType } : { path: inputPath, mimeType: contentType };
  const upstream = embedded ? await readStore(input) : null;
  if (upstream) await builder.addIngredient(JSON.stringify({ title: 'upstream output', relationship: 'parentOf' }), input);
  const inMemory = 'buffer' in input;
  const output: { buffer: Buffer | null } | { path: string } = inMemory ? { buffer: null } : { path: args.outputPath };
  const local = inMemory ? localSigner(args.signer) : undefined;
  const manifest = local ? builder.sign(local, input, output) : await builder.signAsync(asyncSigner(args.signer), input, output);
  if ('buffer' in output) {
    if (!output.buffer) throw new Error(`the C2PA library signed ${contentType} without answering the signed bytes`);
    await writeFile(args.outputPath, output.buffer);
  }
  return { embedded, manifest, keptUpstreamManifest: upstream !== null };
}

type Asset = { path: string; mimeType: string } | { buffer: Buffer; mimeType: string };

/** Verification settings: signatures that chain to `trustAnchorsPem` validate as Trusted. */
function verifySettings(trustAnchorsPem: string | undefined) {
  return trustAnchorsPem ? { verify: { verify_trust: true }, trust: { trust_anchors: trustAnchorsPem } } : { verify: { verify_trust: false } };
}

/** A file's manifest store, validated; null when it carries none. Throws when one is there but cannot be read. */
async function readStore(asset: Asset, trustAnchorsPem?: string): Promise<ManifestStore | null> {
  const reader = await Reader.fromAsset(asset, verifySettings(trustAnchorsPem) as never);
  return reader ? (reader.json() as unknown as ManifestStore) : null;
}

export type ReadOutcome = { kind: 'none' } | { kind: 'unreadable'; reason: string } | { kind: 'store'; store: ManifestStore };

/**
 * Reads and validates the manifest of a file, embedded or from a sidecar. A file that holds what looks like a manifest
 * the library cannot parse (a damaged one) is `unreadable`.
 */
export async function readManifest(asset: Asset, options: { sidecar?: Buffer; trustAnchorsPem?: string } = {}): Promise<ReadOutcome> {
  try {
    if (options.sidecar) {
      const reader = await Reader.fromManifestDataAndAsset(options.sidecar, asset, verifySettings(options.trustAnchorsPem) as never);
      return { kind: 'store', store: reader.json() as unknown as ManifestStore };
    }
    // A type the library cannot embed into (WebM) carries its manifest only in a sidecar.
    if (!embedsManifest(asset.mimeType)) return { kind: 'none' };
    const store = await readStore(asset, options.trustAnchorsPem);
    return store ? { kind: 'store', store } : { kind: 'none' };
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    // The library reports a file without a manifest as an error on some types.
    if (/no jumbf|jumbf not found|manifest not found|no manifest|ManifestNotFound|JumbfNotFound/i.test(reason)) return { kind: 'none' };
    return { kind: 'unreadable', reason };
  }
}
