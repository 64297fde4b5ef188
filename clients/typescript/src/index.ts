export { Genmedia, type GenmediaOptions, type RequestOptions, type RunOptions, type SubmitOptions, type UploadOptions } from './client';
export { GenmediaConnectionError, GenmediaError, GenmediaJobError, retryAfterSeconds } from './errors';
export { followEvents, type FollowOptions } from './events';
export { DEFAULT_RETRY_POLICY, isRetrySafe, retryingFetch, type RetryPolicy } from './retry';
export { formatDollars, MICRO_CENTS_PER_DOLLAR } from './money';
export { contentTypeFor, type UploadSource } from './uploadSource';
export { verifyWebhook, type WebhookHeaders } from './webhooks';
export * from './types';
export type { components, paths, webhooks } from './generated/openapi';
