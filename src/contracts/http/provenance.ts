/** Wire shapes of the provenance endpoints: an output's Content Credentials, and the check of any file. */
import { z } from './zod';

export const ProvenanceSignerSchema = z
  .object({
    issuer: z.string().nullable().openapi({ description: 'Organization of the certificate that issued the signing certificate' }),
    commonName: z.string().nullable().openapi({ description: "The signing certificate's common name" }),
    serialNumber: z.string().nullable(),
    algorithm: z.string().nullable().openapi({ example: 'Es256' }),
    time: z.string().nullable().openapi({ description: 'When it was signed, as the signature says (a time-stamp authority\'s time when one countersigned)' }),
  })
  .openapi('ProvenanceSigner');

export const ProvenanceReportSchema = z
  .object({
    hasManifest: z.boolean().openapi({ description: 'The file carries a C2PA manifest (embedded, or in its sidecar `.c2pa`)' }),
    manifestLocation: z.enum(['embedded', 'sidecar']).nullable(),
    validationState: z.enum(['Invalid', 'Valid', 'Trusted']).nullable().openapi({
      description:
        "The C2PA validation state: `Trusted` (valid and signed by this deployment's chain), `Valid` (valid, signed by another chain), `Invalid` (changed after signing, or a broken manifest); null without a manifest",
    }),
    valid: z.boolean().openapi({ description: 'The manifest validates: the bytes are the ones signed, and the signature is sound' }),
    signedByThisService: z.boolean().openapi({ description: "Signed by a certificate that chains to this deployment's configured trust anchors" }),
    activeManifest: z
      .object({
        label: z.string(),
        claimGenerator: z.string().nullable().openapi({ example: 'genmedia/0.1.0' }),
        signer: ProvenanceSignerSchema.nullable(),
        assertions: z.array(z.object({ label: z.string(), data: z.unknown() })).openapi({
          description: '`c2pa.actions` (`c2pa.created`, digital source type, software agent) and `io.genmedia.output` (job, model, version, route, time)',
        }),
        ingredients: z
          .array(
            z.object({
              title: z.string().nullable(),
              format: z.string().nullable(),
              relationship: z.string().nullable().openapi({ example: 'parentOf' }),
              claimGenerator: z.string().nullable(),
              signer: ProvenanceSignerSchema.nullable(),
            }),
          )
          .openapi({ description: "An upstream's own manifest, kept as a `parentOf` ingredient when its output carried one" }),
      })
      .nullable(),
    failures: z.array(z.object({ code: z.string(), explanation: z.string().nullable() })).openapi({
      description: 'The validation failures of the active manifest (C2PA status codes, e.g. `assertion.dataHash.mismatch`)',
    }),
  })
  .openapi('ProvenanceReport');

export const OutputProvenanceSchema = ProvenanceReportSchema.extend({
  jobId: z.string(),
  output: z.number().int().openapi({ description: '1 for the first output' }),
  contentType: z.string(),
  manifestUrl: z.string().url().nullable().openapi({ description: 'Signed URL of the sidecar `.c2pa` manifest (WebM outputs), valid for jobs.outputUrlTtlSeconds; null when the manifest is embedded' }),
}).openapi('OutputProvenance');

export const ProvenanceVerificationSchema = z
  .object({
    hasManifest: z.boolean(),
    valid: z.boolean(),
    signedByThisService: z.boolean().openapi({ description: "Issued by this service: signed by this deployment's chain" }),
    job: z
      .object({ jobId: z.string(), output: z.number().int() })
      .nullable()
      .openapi({ description: "The job and output it is, when signed by this service for a job of the caller's own account; null otherwise" }),
    report: ProvenanceReportSchema,
  })
  .openapi('ProvenanceVerification');

/** The multipart form of a check: the file, and the sidecar manifest to check it against (a WebM's `.c2pa`). */
export const ProvenanceCheckFormSchema = z
  .object({
    file: z.string().openapi({ format: 'binary', description: 'The file to check (PNG, JPEG, WebP, MP4 or WebM)' }),
    manifest: z.string().optional().openapi({ format: 'binary', description: "Its sidecar manifest store (`application/c2pa`, at most 1 MiB): a WebM output's `.c2pa`" }),
  })
  .openapi('ProvenanceCheckForm');

export const OutputParamsSchema = z.object({
  jobId: z.string().min(1).max(100),
  n: z.coerce.number({ error: 'n is the output number, 1 for the first' }).int('n is a whole number').min(1, 'n starts at 1').max(1000),
});

export type ProvenanceReport = z.infer<typeof ProvenanceReportSchema>;
export type ProvenanceSigner = z.infer<typeof ProvenanceSignerSchema>;
export type OutputProvenance = z.infer<typeof OutputProvenanceSchema>;
export type ProvenanceVerification = z.infer<typeof ProvenanceVerificationSchema>;
