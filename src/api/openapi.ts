import {
  extendZodWithOpenApi,
  OpenAPIRegistry,
  OpenApiGeneratorV31,
} from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';
import { ERROR_CODES } from '../shared/errors';

extendZodWithOpenApi(z);

/** Every route registers its path and schemas here at module load; /openapi.json is generated from it. */
export const registry = new OpenAPIRegistry();

export const bearerAuth = registry.registerComponent('securitySchemes', 'bearerAuth', {
  type: 'http',
  scheme: 'bearer',
  description: 'API key in `Authorization: Bearer <API_KEY>`',
});

export const apiKeyHeader = registry.registerComponent('securitySchemes', 'apiKeyHeader', {
  type: 'apiKey',
  in: 'header',
  name: 'x-api-key',
  description: 'API key in the `x-api-key` header',
});

export const ErrorBody = registry.register(
  'Error',
  z.object({
    success: z.literal(false),
    error: z.object({
      code: z.enum(ERROR_CODES as [string, ...string[]]),
      message: z.string(),
      details: z.unknown().optional(),
    }),
    requestId: z.string(),
  }),
);

/**
 * Standard error responses to spread into a path's `responses`. Every operation can answer 400 (a malformed request:
 * NUL characters, bad percent-encoding), 500, and 503 (the database unavailable for a moment), so those are always
 * included.
 */
export function errorResponses(...listed: number[]) {
  const statuses = [...new Set([400, ...listed, 500, 503])].sort((x, y) => x - y);
  const descriptions: Record<number, string> = {
    400: 'Invalid request (VALIDATION_ERROR, INVALID_INPUT, ...)',
    401: 'Missing, unknown or revoked API key (UNAUTHORIZED)',
    402: 'Not enough credits (INSUFFICIENT_BALANCE)',
    403: 'Key lacks the scope or access (INSUFFICIENT_SCOPE, MODEL_ACCESS_DENIED, UNAUTHORIZED_ACCESS)',
    404: 'Not found',
    409: 'Conflict with the current state',
    429: 'Limit reached; see Retry-After',
    500: 'Unexpected error (INTERNAL_ERROR); the requestId finds it in the logs',
    503: 'Temporarily unavailable; retry',
  };
  return Object.fromEntries(
    statuses.map((s) => [
      s,
      { description: descriptions[s] ?? 'Error', content: { 'application/json': { schema: ErrorBody } } },
    ]),
  );
}

export function buildOpenApiDocument(serverUrl: string) {
  return new OpenApiGeneratorV31(registry.definitions).generateDocument({
    openapi: '3.1.0',
    info: {
      title: 'genmedia API',
      version: '1.0.0',
      description: 'Asynchronous generation jobs, uploads and the model catalog. Money is integer micro-cents.',
    },
    servers: [{ url: serverUrl }],
  });
}
