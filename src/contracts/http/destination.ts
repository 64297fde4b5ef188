import { z } from './zod';

/** S3 bucket naming: 3–63 lower-case letters, digits, dots and hyphens, beginning and ending with a letter or digit. */
const BUCKET_NAME = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;
/** Printable ASCII, no spaces: what access key ids and secrets are made of. */
const CREDENTIAL = /^[\x21-\x7e]+$/;
/** No control characters, no leading slash, no `.`/`..` segment, no empty segment. */
// eslint-disable-next-line no-control-regex -- refusing control characters is the point
const PREFIX_SEGMENT = /^[^\x00-\x1f\x7f]+$/;

export const MAX_PREFIX_LENGTH = 512;

const prefixField = z
  .string()
  .max(MAX_PREFIX_LENGTH)
  .refine((prefix) => prefix === '' || (!prefix.startsWith('/') && !prefix.replace(/\/$/, '').split('/').some((s) => s === '' || s === '.' || s === '..' || !PREFIX_SEGMENT.test(s))), {
    message: 'must be empty or path segments separated by `/`: no leading `/`, no empty, `.` or `..` segment, no control characters',
  })
  // Every key goes under `prefix`, so it ends in `/` (added when missing).
  .transform((prefix) => (prefix === '' || prefix.endsWith('/') ? prefix : `${prefix}/`));

export const PutDestinationBodySchema = z
  .object({
    endpoint: z
      .string()
      .max(2048)
      .refine((value) => {
        try {
          const url = new URL(value);
          return (url.protocol === 'https:' || url.protocol === 'http:') && (url.pathname === '/' || url.pathname === '') && !url.search && !url.hash;
        } catch {
          return false;
        }
      }, 'must be the origin of an S3 API: https://host[:port], without a path, query or fragment')
      .transform((value) => new URL(value).origin)
      .openapi({ description: 'Origin of the S3-compatible API', example: 'https://s3.eu-central-1.amazonaws.com' }),
    region: z.string().min(1).max(64).regex(/^[a-z0-9-]+$/, 'lower-case letters, digits and hyphens').default('us-east-1').openapi({ example: 'eu-central-1' }),
    bucket: z.string().regex(BUCKET_NAME, '3–63 lower-case letters, digits, dots and hyphens, beginning and ending with a letter or digit').openapi({ example: 'acme-renders' }),
    prefix: prefixField.default('').openapi({
      description: 'Key prefix every delivered object goes under; `/` is added when missing. Empty: the bucket root',
      example: 'genmedia/',
    }),
    accessKeyId: z.string().min(1).max(128).regex(CREDENTIAL, 'printable characters without spaces').openapi({ example: 'AKIAIOSFODNN7EXAMPLE' }),
    secretAccessKey: z
      .string()
      .min(1)
      .max(256)
      .regex(CREDENTIAL, 'printable characters without spaces')
      .openapi({ description: 'Write-only: stored encrypted, never returned, logged or traced', format: 'password', writeOnly: true }),
  })
  .strict()
  .openapi('PutDestinationRequest');

export type PutDestinationBody = z.infer<typeof PutDestinationBodySchema>;

export const DestinationSchema = z
  .object({
    endpoint: z.string().openapi({ example: 'https://s3.eu-central-1.amazonaws.com' }),
    region: z.string().openapi({ example: 'eu-central-1' }),
    bucket: z.string().openapi({ example: 'acme-renders' }),
    prefix: z.string().openapi({ description: 'Empty, or ending in `/`', example: 'genmedia/' }),
    accessKeyId: z.string().openapi({ example: 'AKIAIOSFODNN7EXAMPLE' }),
    secretSet: z.boolean().openapi({ description: 'Whether a secret access key is stored (it is never returned)' }),
    configuredAt: z.string().openapi({ format: 'date-time', description: 'When this configuration passed its probe and was saved' }),
  })
  .openapi('Destination');

export type DestinationView = z.infer<typeof DestinationSchema>;
