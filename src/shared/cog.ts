/** Where self-hosted Cog servers post their webhooks (src/api/routes/providerCallbacks.ts serves it). */
export const COG_CALLBACK_PATH = '/v1/providers/cog/callback';
/** The path Cog's webhooks were posted to before, still served (src/providers/callbackUrl.ts aliasCallbackPath). */
export const COG_ALIAS_CALLBACK_PATH = '/v1/upstreams/cog/callback';

/** The most of one prediction read from a Cog server or its webhook: its output may hold data: URLs. */
export const COG_PREDICTION_MAX_BYTES = 64 * 1024 * 1024;
