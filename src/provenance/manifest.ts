/**
 * The manifest genmedia signs into every output, and the shapes of what the library reads back. Pure: the facts of
 * the job in, the manifest definition out.
 */
import { GENMEDIA_ASSERTION, type GenmediaAssertion } from '../shared/provenance';

/** IPTC digital source type of media a trained model made (https://cv.iptc.org/newscodes/digitalsourcetype/). */
export const TRAINED_ALGORITHMIC_MEDIA = 'http://cv.iptc.org/newscodes/digitalsourcetype/trainedAlgorithmicMedia';

/**
 * Whether `head` (a file's first 20 bytes or more) opens a C2PA manifest store: a JUMBF superbox (`jumb`) whose
 * description box (`jumd`) carries the C2PA store's type, whose UUID begins with the ASCII `c2pa`.
 */
export function opensManifestStore(head: Buffer): boolean {
  return head.length >= 20 && head.toString('latin1', 4, 8) === 'jumb' && head.toString('latin1', 12, 16) === 'jumd' && head.toString('latin1', 16, 20) === 'c2pa';
}

export interface OutputFacts {
  jobId: string;
  /** 1-based, as the API numbers outputs. */
  output: number;
  modelSlug: string;
  version: string;
  /** The provider that ran the job, and the upstream's own model id where it was a real upstream. */
  route: { provider: string; upstreamModel?: string };
  /** When the output was signed. */
  signedAt: Date;
  /** Only when the account opted in (an operator setting): the prompt is the customer's. */
  prompt?: string;
}

export interface ManifestDefinition {
  claim_generator_info: { name: string; version: string }[];
  title?: string;
  format?: string;
  assertions: { label: string; data: Record<string, unknown> }[];
}


export function manifestDefinition(facts: OutputFacts, generator: { name: string; version: string }, contentType: string): ManifestDefinition {
  const assertion: GenmediaAssertion = {
    jobId: facts.jobId,
    output: facts.output,
    model: facts.modelSlug,
    version: facts.version,
    route: facts.route,
    createdAt: facts.signedAt.toISOString(),
    ...(facts.prompt !== undefined ? { prompt: facts.prompt } : {}),
  };
  return {
    claim_generator_info: [generator],
    format: contentType,
    assertions: [
      {
        label: 'c2pa.actions',
        data: {
          actions: [
            {
              action: 'c2pa.created',
              digitalSourceType: TRAINED_ALGORITHMIC_MEDIA,
              softwareAgent: { name: facts.modelSlug, version: facts.version },
              when: facts.signedAt.toISOString(),
            },
          ],
        },
      },
      { label: GENMEDIA_ASSERTION, data: { ...assertion } },
    ],
  };
}

// What the library answers when it reads a file (the parts genmedia uses), in its own snake_case.
export interface ValidationStatusEntry {
  code: string;
  url?: string;
  explanation?: string;
}

export interface StoredManifest {
  label?: string;
  title?: string;
  format?: string;
  claim_generator?: string;
  claim_generator_info?: { name: string; version?: string }[];
  assertions?: { label: string; data: unknown }[];
  ingredients?: { title?: string; format?: string; relationship?: string; active_manifest?: string; validation_results?: unknown }[];
  signature_info?: { alg?: string; issuer?: string; common_name?: string; cert_serial_number?: string; time?: string };
}

export interface ManifestStore {
  active_manifest?: string;
  manifests: Record<string, StoredManifest>;
  validation_state?: 'Invalid' | 'Valid' | 'Trusted';
  validation_status?: ValidationStatusEntry[];
  validation_results?: { activeManifest?: { success?: ValidationStatusEntry[]; failure?: ValidationStatusEntry[]; informational?: ValidationStatusEntry[] } };
}
