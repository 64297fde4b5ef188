/** Where self-hosted Cog servers post their webhooks (src/api/routes/cogCallbacks.ts serves it). */
export const COG_CALLBACK_PATH = '/v1/upstreams/cog/callback';
