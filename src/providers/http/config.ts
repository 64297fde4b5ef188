import { z } from 'zod';

/**
 * Per-provider settings of the HTTP queue adapter, read from the environment:
 *
 *   PROVIDER_HTTP_<ID>_URL                    base URL (required), e.g. https://api.example.com
 *   PROVIDER_HTTP_<ID>_API_KEY                sent as `Authorization: Bearer <key>` (optional)
 *   PROVIDER_HTTP_<ID>_POLL_INTERVAL_MS       status poll interval when no Retry-After is given (default 2000)
 *   PROVIDER_HTTP_<ID>_MAX_POLL_INTERVAL_MS   cap on a Retry-After wait (default 60000)
 *   PROVIDER_HTTP_<ID>_REQUEST_TIMEOUT_MS     timeout of each HTTP request (default 30000)
 *   PROVIDER_HTTP_<ID>_TIMEOUT_SECONDS        longest a generation may take before PROVIDER_TIMEOUT (default 1800)
 *   PROVIDER_HTTP_<ID>_MAX_OUTPUT_BYTES       largest output file accepted (default 524288000)
 *
 * `<ID>` is the provider id upper-cased with every run of other characters replaced by `_`
 * (`acme-labs` → `PROVIDER_HTTP_ACME_LABS_URL`).
 */
export interface HttpProviderConfig {
  providerId: string;
  baseUrl: string;
  apiKey?: string;
  pollIntervalMs: number;
  maxPollIntervalMs: number;
  requestTimeoutMs: number;
  generationTimeoutSeconds: number;
  maxOutputBytes: number;
}

export class ProviderConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ProviderConfigError';
  }
}

export function providerEnvPrefix(providerId: string): string {
  const id = providerId.toUpperCase().replace(/[^A-Z0-9]+/g, '_').replace(/^_+|_+$/g, '');
  return `PROVIDER_HTTP_${id}_`;
}

const positiveInt = z.coerce.number().int().positive();

export const HTTP_PROVIDER_DEFAULTS = {
  pollIntervalMs: 2_000,
  maxPollIntervalMs: 60_000,
  requestTimeoutMs: 30_000,
  generationTimeoutSeconds: 1_800,
  maxOutputBytes: 500 * 1024 * 1024,
} as const;

const Schema = z.object({
  URL: z.string().url(),
  API_KEY: z.string().min(1).optional(),
  POLL_INTERVAL_MS: positiveInt.default(HTTP_PROVIDER_DEFAULTS.pollIntervalMs),
  MAX_POLL_INTERVAL_MS: positiveInt.default(HTTP_PROVIDER_DEFAULTS.maxPollIntervalMs),
  REQUEST_TIMEOUT_MS: positiveInt.default(HTTP_PROVIDER_DEFAULTS.requestTimeoutMs),
  TIMEOUT_SECONDS: positiveInt.default(HTTP_PROVIDER_DEFAULTS.generationTimeoutSeconds),
  MAX_OUTPUT_BYTES: positiveInt.default(HTTP_PROVIDER_DEFAULTS.maxOutputBytes),
});

/** Reads and validates one provider's settings; the error names the offending variable. */
export function httpProviderConfigFromEnv(providerId: string, env: NodeJS.ProcessEnv = process.env): HttpProviderConfig {
  const prefix = providerEnvPrefix(providerId);
  const raw: Record<string, string> = {};
  for (const key of Object.keys(Schema.shape)) {
    const value = env[prefix + key];
    if (value !== undefined && value !== '') raw[key] = value;
  }
  const parsed = Schema.safeParse(raw);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${prefix}${i.path.join('.')}: ${i.message}`).join('; ');
    throw new ProviderConfigError(`Invalid configuration of HTTP provider "${providerId}": ${problems}`);
  }
  const c = parsed.data;
  return {
    providerId,
    baseUrl: c.URL.replace(/\/+$/, ''),
    apiKey: c.API_KEY,
    pollIntervalMs: c.POLL_INTERVAL_MS,
    maxPollIntervalMs: c.MAX_POLL_INTERVAL_MS,
    requestTimeoutMs: c.REQUEST_TIMEOUT_MS,
    generationTimeoutSeconds: c.TIMEOUT_SECONDS,
    maxOutputBytes: c.MAX_OUTPUT_BYTES,
  };
}
