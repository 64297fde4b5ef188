/** The Replicate dialect's wire types (the subset of Replicate's HTTP API genmedia speaks). */
import { z } from '../../contracts/http/zod';
import { WEBHOOK_EVENT_FILTERS } from './predictions';

const input = z.record(z.string(), z.unknown()).openapi({ description: "The model's input, checked against its version's input schema" });

const predictionFields = {
  input,
  webhook: z.string().min(1).optional().openapi({ description: 'HTTPS URL the prediction\'s webhooks are posted to, signed with the account\'s secret' }),
  webhook_events_filter: z
    .array(z.enum(WEBHOOK_EVENT_FILTERS))
    .min(1)
    .optional()
    .openapi({ description: 'Which events are sent (default: all): `start`, `logs` (progress), `completed` (succeeded, failed or canceled); `output` adds nothing, since outputs arrive with `completed`' }),
  stream: z.literal(false).optional().openapi({ description: 'Streaming is not offered: only `false` is accepted' }),
};

/** The query of an output URL: its `token`, the capability that opens the output without a key. */
export const OutputAccessQuerySchema = z.object({
  token: z
    .string()
    .min(1)
    .max(128)
    .optional()
    .openapi({ description: 'The signed token of an output URL (`<expiry>.<signature>`): opens this output without a key until it expires' }),
});

export const CreateModelPredictionSchema = z.strictObject(predictionFields).openapi('ReplicateModelPredictionRequest');

export const CreatePredictionSchema = z
  .strictObject({
    version: z.string().min(1).openapi({ description: 'A version id, `owner/name:<version id>`, or `owner/name` for its latest version' }),
    ...predictionFields,
  })
  .openapi('ReplicatePredictionRequest');

export const PredictionSchema = z
  .object({
    id: z.string().openapi({ description: 'The genmedia job id' }),
    model: z.string().openapi({ example: 'pixelforge/forge-pro' }),
    version: z.string(),
    status: z.enum(['starting', 'processing', 'succeeded', 'failed', 'canceled']),
    input: z.record(z.string(), z.unknown()),
    output: z
      .array(z.string())
      .nullable()
      .openapi({ description: "URLs of the outputs, served by this API: each opens its output with no credential until its `token` expires (1 h), and to a key of the prediction's account" }),
    logs: z.string(),
    error: z.string().nullable(),
    data_removed: z.boolean(),
    source: z.literal('api'),
    metrics: z.object({ predict_time: z.number().optional(), total_time: z.number().optional() }),
    urls: z.object({ get: z.string(), cancel: z.string() }),
    created_at: z.string(),
    started_at: z.string().nullable(),
    completed_at: z.string().nullable(),
  })
  .openapi('ReplicatePrediction');

export const PredictionPageSchema = z
  .object({ previous: z.string().nullable(), next: z.string().nullable(), results: z.array(PredictionSchema) })
  .openapi('ReplicatePredictionPage');

export const VersionSchema = z
  .object({ id: z.string(), created_at: z.string(), cog_version: z.string(), openapi_schema: z.record(z.string(), z.unknown()).openapi('ReplicateOpenApiSchema', { description: "The version's OpenAPI document: its input and output schemas" }) })
  .openapi('ReplicateVersion');

export const ModelSchema = z
  .object({
    url: z.string(),
    owner: z.string(),
    name: z.string(),
    description: z.string(),
    visibility: z.enum(['public', 'private']),
    github_url: z.null(),
    paper_url: z.null(),
    license_url: z.null(),
    run_count: z.number().int().openapi({ description: "The calling account's own predictions of the model" }),
    cover_image_url: z.null(),
    default_example: z.null(),
    latest_version: VersionSchema.nullable(),
  })
  .openapi('ReplicateModel');

export const WebhookSecretSchema = z.object({ key: z.string().openapi({ example: 'whsec_...' }) }).openapi('ReplicateWebhookSecret');

export const ReplicateProblemSchema = z
  .object({
    type: z.string().openapi({ example: 'about:blank' }),
    title: z.string().openapi({ example: 'Not Found' }),
    detail: z.string(),
    status: z.number().int(),
    code: z.string().openapi({ description: "genmedia's stable error code", example: 'MODEL_NOT_FOUND' }),
    errors: z.array(z.object({ path: z.string(), message: z.string() })).optional(),
  })
  .openapi('ReplicateProblem');
