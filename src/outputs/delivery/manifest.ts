/**
 * The `manifest.json` written beside a job's delivered outputs. It holds only facts fixed at completion, so every
 * delivery of a job writes the same bytes and a repeated one leaves the customer's copy as it was.
 */

export interface ManifestOutput {
  /** The output's key in the customer's bucket. */
  key: string;
  contentType: string;
  sizeBytes: number;
  /** Lowercase hex SHA-256 of the output's bytes. */
  sha256: string;
  /** The key of its sidecar Content Credentials (`.c2pa`), for an output whose type carries none inside (WebM). */
  contentManifestKey?: string;
}

export interface DeliveredJobFacts {
  jobId: string;
  model: string;
  version: string;
  costMicroCents: number;
  createdAt: Date;
  startedAt: Date | null;
  completedAt: Date;
}

export interface DeliveryManifest {
  jobId: string;
  model: string;
  version: string;
  costMicroCents: number;
  createdAt: string;
  startedAt: string | null;
  completedAt: string;
  outputs: ManifestOutput[];
}

export function buildManifest(job: DeliveredJobFacts, outputs: ManifestOutput[]): DeliveryManifest {
  return {
    jobId: job.jobId,
    model: job.model,
    version: job.version,
    costMicroCents: job.costMicroCents,
    createdAt: job.createdAt.toISOString(),
    startedAt: job.startedAt?.toISOString() ?? null,
    completedAt: job.completedAt.toISOString(),
    outputs,
  };
}

/** The manifest's bytes as written: indented JSON with a final newline. */
export function manifestBytes(manifest: DeliveryManifest): Buffer {
  return Buffer.from(`${JSON.stringify(manifest, null, 2)}\n`, 'utf8');
}
