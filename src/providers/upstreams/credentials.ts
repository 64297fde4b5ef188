/**
 * Which environment variables make an upstream usable. The credential variable is the one the
 * upstream's official SDK already reads; the origin variable points the SDK at another server
 * (a compatible gateway, or the fakes in tests).
 */
import type { UpstreamId } from './ids';

export interface UpstreamEnvironment {
  /** The API key, under the name the SDK reads. */
  credential: string;
  /** Overrides the upstream's API origin. */
  origin: string;
  /** The upstream's own default origin, for the docs and error messages. */
  defaultOrigin: string;
}

export const UPSTREAM_ENV: Record<UpstreamId, UpstreamEnvironment> = {
  fal: { credential: 'FAL_KEY', origin: 'FAL_BASE_URL', defaultOrigin: 'https://queue.fal.run' },
  replicate: { credential: 'REPLICATE_API_TOKEN', origin: 'REPLICATE_BASE_URL', defaultOrigin: 'https://api.replicate.com' },
  runway: { credential: 'RUNWAYML_API_SECRET', origin: 'RUNWAYML_BASE_URL', defaultOrigin: 'https://api.dev.runwayml.com' },
  google: { credential: 'GEMINI_API_KEY', origin: 'GOOGLE_GEMINI_BASE_URL', defaultOrigin: 'https://generativelanguage.googleapis.com' },
  openai: { credential: 'OPENAI_API_KEY', origin: 'OPENAI_BASE_URL', defaultOrigin: 'https://api.openai.com/v1' },
};

/** The variables an upstream's callbacks are verified with, read where its callbacks are taken. */
export const UPSTREAM_CALLBACK_ENV = {
  /** Our fal account: only its callbacks are taken (X-Fal-Webhook-User-Id); unset, fal jobs are polled. */
  falUserId: 'FAL_USER_ID',
  /** Replicate's webhook signing secret; unset, read once with the API token. */
  replicateWebhookSecret: 'REPLICATE_WEBHOOK_SECRET',
} as const;

export function upstreamCredential(id: UpstreamId, env: NodeJS.ProcessEnv): string | undefined {
  const value = env[UPSTREAM_ENV[id].credential]?.trim();
  return value ? value : undefined;
}

/** The origin override, without a trailing slash, or undefined for the upstream's own. */
export function upstreamOrigin(id: UpstreamId, env: NodeJS.ProcessEnv): string | undefined {
  const value = env[UPSTREAM_ENV[id].origin]?.trim();
  return value ? value.replace(/\/+$/, '') : undefined;
}
