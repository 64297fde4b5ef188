/**
 * A file's Content Credentials as the API reports them: what the library read and validated, in the API's own
 * camelCase shape (src/contracts/http/provenance.ts). Pure.
 */
import type { ProvenanceReport, ProvenanceSigner } from '../contracts/http/provenance';
import type { ReadOutcome } from './c2pa';
import { GENMEDIA_ASSERTION, type GenmediaAssertion } from '../shared/provenance';
import type { ManifestStore, StoredManifest } from './manifest';

function signerOf(manifest: StoredManifest): ProvenanceSigner | null {
  const info = manifest.signature_info;
  if (!info) return null;
  return {
    issuer: info.issuer ?? null,
    commonName: info.common_name ?? null,
    serialNumber: info.cert_serial_number ?? null,
    algorithm: info.alg ?? null,
    time: info.time ?? null,
  };
}

function claimGeneratorOf(manifest: StoredManifest): string | null {
  const info = manifest.claim_generator_info?.[0];
  if (info) return info.version ? `${info.name}/${info.version}` : info.name;
  return manifest.claim_generator ?? null;
}

/** Failures of the active manifest (the library lists them per manifest, or flat in older stores). */
function failuresOf(store: ManifestStore) {
  const failures = store.validation_results?.activeManifest?.failure ?? store.validation_status ?? [];
  return failures.map((f) => ({ code: f.code, explanation: f.explanation ?? null }));
}

export function toReport(read: ReadOutcome, manifestLocation: 'embedded' | 'sidecar'): ProvenanceReport {
  if (read.kind === 'none') {
    return { hasManifest: false, manifestLocation: null, validationState: null, valid: false, signedByThisService: false, activeManifest: null, failures: [] };
  }
  if (read.kind === 'unreadable') {
    return {
      hasManifest: true,
      manifestLocation,
      validationState: 'Invalid',
      valid: false,
      signedByThisService: false,
      activeManifest: null,
      failures: [{ code: 'manifest.unreadable', explanation: read.reason }],
    };
  }
  const { store } = read;
  const state = store.validation_state ?? 'Invalid';
  const active = store.active_manifest ? store.manifests[store.active_manifest] : undefined;
  return {
    hasManifest: true,
    manifestLocation,
    validationState: state,
    valid: state !== 'Invalid',
    // Trusted means the signature chains to this deployment's trust anchors: the only anchors the reader is given.
    signedByThisService: state === 'Trusted',
    activeManifest: active
      ? {
          label: store.active_manifest!,
          claimGenerator: claimGeneratorOf(active),
          signer: signerOf(active),
          assertions: (active.assertions ?? []).map((a) => ({ label: a.label, data: a.data })),
          ingredients: (active.ingredients ?? []).map((ingredient) => {
            const manifest = ingredient.active_manifest ? store.manifests[ingredient.active_manifest] : undefined;
            return {
              title: ingredient.title ?? null,
              format: ingredient.format ?? null,
              relationship: ingredient.relationship ?? null,
              claimGenerator: manifest ? claimGeneratorOf(manifest) : null,
              signer: manifest ? signerOf(manifest) : null,
            };
          }),
        }
      : null,
    failures: failuresOf(store),
  };
}

/** genmedia's assertion in a report's active manifest, when there is one. */
export function genmediaAssertionOf(report: ProvenanceReport): GenmediaAssertion | null {
  const found = report.activeManifest?.assertions.find((a) => a.label === GENMEDIA_ASSERTION);
  return found ? (found.data as GenmediaAssertion) : null;
}
