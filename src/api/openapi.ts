import {
  OpenAPIRegistry,
  OpenApiGeneratorV31,
  type ResponseConfig,
} from '@asteasolutions/zod-to-openapi';
import { z } from '../contracts/http/zod';
import { ERROR_CODES } from '../shared/errors';

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

/** Headers a client reads, declared once and referenced from the responses that carry them. */
export const responseHeaders = {
  requestId: registry.registerComponent('headers', 'X-Request-Id', {
    description: 'The id of this request (the one the client sent in `X-Request-Id` when well formed); errors repeat it as `requestId`',
    required: true,
    schema: { type: 'string', example: 'req_3kTMd9Qx0vLw7bYz1aR5' },
  }).ref,
  traceId: registry.registerComponent('headers', 'X-Trace-Id', {
    description: 'With tracing on: the W3C trace id of this request, to find it in the tracing backend',
    schema: { type: 'string', pattern: '^[0-9a-f]{32}$' },
  }).ref,
  retryAfter: registry.registerComponent('headers', 'Retry-After', {
    description: 'Seconds to wait before retrying',
    schema: { type: 'integer', minimum: 0, example: 1 },
  }).ref,
};

/** Operations anyone may call, without a key. */
export const PUBLIC: Array<Record<string, string[]>> = [];

/**
 * Standard error responses to spread into a path's `responses`. Every operation can answer 400 (a malformed request:
 * NUL characters, bad percent-encoding), 500, and 503 (the database unavailable for a moment), so those are always
 * included.
 */
export function errorResponses(...listed: number[]) {
  const statuses = [...new Set([400, ...listed, 500, 503])].sort((x, y) => x - y);
  return Object.fromEntries(statuses.map((s) => [s, errorResponse(s)]));
}

const ERROR_DESCRIPTIONS: Record<number, string> = {
  400: 'Invalid request (VALIDATION_ERROR, INVALID_INPUT, ...)',
  401: 'Missing, unknown or revoked API key (UNAUTHORIZED)',
  402: 'Not enough credits (INSUFFICIENT_BALANCE)',
  403: 'Key lacks the scope or access (INSUFFICIENT_SCOPE, MODEL_ACCESS_DENIED, UNAUTHORIZED_ACCESS)',
  404: 'Not found',
  409: 'Conflict with the current state',
  408: 'The request body did not arrive in time (REQUEST_TIMEOUT); the connection is closed',
  413: 'Request body over the limit of this route (PAYLOAD_TOO_LARGE)',
  422: 'The request is well formed but what it names does not work (DESTINATION_UNREACHABLE, ...)',
  429: 'Limit reached; see Retry-After',
  500: 'Unexpected error (INTERNAL_ERROR); the requestId finds it in the logs',
  503: 'Temporarily unavailable; retry after Retry-After',
};

/** One documented error answer; 429 and 503 say when to retry in `Retry-After`. */
export function errorResponse(status: number, description = ERROR_DESCRIPTIONS[status] ?? 'Error') {
  const retryable = status === 429 || status === 503;
  return {
    description,
    ...(retryable ? { headers: { 'Retry-After': responseHeaders.retryAfter } } : {}),
    content: { 'application/json': { schema: ErrorBody } },
  };
}

const SERVED_BY = 'x-served-by';

/**
 * A response that storage gives after a redirect, not this API (it carries none of the API's headers). Marked with
 * the extension `x-served-by: storage`.
 */
export function storageResponse(description: string, content: ResponseConfig['content']): ResponseConfig {
  return { description, content, [SERVED_BY]: 'storage' } as ResponseConfig;
}

interface DocumentResponse {
  headers?: Record<string, unknown>;
  [SERVED_BY]?: string;
}

/** Every answer of the API carries `X-Request-Id`, and `X-Trace-Id` with tracing on: declared on each response. */
function withRequestHeaders<T extends { paths?: object }>(document: T): T {
  for (const pathItem of Object.values(document.paths ?? {}) as Array<Record<string, { responses?: Record<string, DocumentResponse> }>>) {
    for (const operation of Object.values(pathItem)) {
      for (const response of Object.values(operation.responses ?? {})) {
        if (response[SERVED_BY] === 'storage') continue;
        response.headers = { ...response.headers, 'X-Request-Id': responseHeaders.requestId, 'X-Trace-Id': responseHeaders.traceId };
      }
    }
  }
  return document;
}

/** The generator's document, named through the generator so the build's declarations need no transitive package. */
export type OpenApiDocument = ReturnType<OpenApiGeneratorV31['generateDocument']>;

export function buildOpenApiDocument(serverUrl: string): OpenApiDocument {
  const document = new OpenApiGeneratorV31(registry.definitions).generateDocument({
    openapi: '3.1.0',
    info: {
      title: 'genmedia API',
      version: '1.0.0',
      description: 'Asynchronous generation jobs, uploads and the model catalog. Money is integer micro-cents.',
      license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
    },
    servers: [{ url: serverUrl }],
  });
  return withRequestHeaders(document);
}
