/** The OpenAI dialect's wire types (the subset of OpenAI's Images and Models APIs genmedia speaks). */
import { z } from '../../contracts/http/zod';

export const ImageGenerationRequestSchema = z
  .strictObject({
    model: z.string().min(1).openapi({ description: 'A genmedia model slug or an alias from the catalog', example: 'gpt-image-1' }),
    prompt: z.string().min(1),
    n: z.number().int().min(1).max(10).nullish().openapi({ description: "How many images (1–10): the model's count field when it has one, else one job per image" }),
    size: z.string().nullish().openapi({ description: '`WIDTHxHEIGHT` as the model lists it in the catalog, or `auto`; a size the model cannot make is refused', example: '1024x1024' }),
    quality: z.string().nullish().openapi({ description: 'A quality the model lists in the catalog, or `auto`', example: 'medium' }),
    response_format: z.enum(['url', 'b64_json']).nullish(),
    user: z.string().max(256).nullish().openapi({ description: 'Accepted and not stored' }),
  })
  .openapi('OpenAiImageGenerationRequest');

export const ImagesResponseSchema = z
  .object({
    created: z.number().int(),
    data: z.array(z.object({ url: z.string().optional(), b64_json: z.string().optional() })),
  })
  .openapi('OpenAiImagesResponse');

export const OpenAiModelSchema = z
  .object({ id: z.string(), object: z.literal('model'), created: z.number().int(), owned_by: z.string() })
  .openapi('OpenAiModel');

export const OpenAiModelListSchema = z.object({ object: z.literal('list'), data: z.array(OpenAiModelSchema) }).openapi('OpenAiModelList');

export const OpenAiErrorSchema = z
  .object({
    error: z.object({
      message: z.string(),
      type: z.string().openapi({ example: 'invalid_request_error' }),
      param: z.string().nullable(),
      code: z.string().openapi({ description: "genmedia's stable error code", example: 'MODEL_NOT_FOUND' }),
    }),
  })
  .openapi('OpenAiError');

/** A file part of a multipart request. */
const binary = () => z.string().openapi({ type: 'string', format: 'binary' });

/** The text fields of an image edit (multipart: numbers arrive as text). */
export const ImageEditFieldsSchema = z.strictObject({
  model: z.string().min(1).openapi({ description: 'A genmedia model slug or an alias from the catalog whose model takes image edits', example: 'gen4-image' }),
  prompt: z.string().min(1),
  n: z.coerce.number().int().min(1).max(10).optional().openapi({ description: "How many images (1–10): the model's count field when it has one, else one job per image" }),
  size: z.string().optional().openapi({ description: '`WIDTHxHEIGHT` as the model lists it in the catalog, or `auto`', example: '1024x1024' }),
  quality: z.string().optional().openapi({ description: 'A quality the model lists in the catalog, or `auto`' }),
  response_format: z.enum(['url', 'b64_json']).optional(),
  user: z.string().max(256).optional().openapi({ description: 'Accepted and not stored' }),
});

export const ImageEditRequestSchema = ImageEditFieldsSchema.extend({
  // One property for both names the SDKs send: a client generator cannot hold `image` and `image[]` side by side.
  image: z
    .array(binary())
    .optional()
    .openapi({
      description: "The images (PNG, JPEG, WebP or GIF, at most 10 MB each), up to the model's limit: one file sent as `image`, several as `image[]` (or repeated `image`)",
    }),
  mask: binary().optional().openapi({ description: 'A mask, for a model whose catalog mapping takes one' }),
}).openapi('OpenAiImageEditRequest');

/** The text fields of a video request (multipart). */
export const VideoCreateFieldsSchema = z.strictObject({
  model: z.string().min(1).openapi({ description: 'A genmedia model slug or an alias from the catalog whose model takes video requests', example: 'lumi-motion' }),
  prompt: z.string().min(1),
  seconds: z.string().optional().openapi({ description: 'A length the model lists in the catalog; absent: the model default', example: '5' }),
  size: z.string().optional().openapi({ description: '`WIDTHxHEIGHT` as the model lists it in the catalog; absent: the model default', example: '640x360' }),
  'input_reference[image_url]': z.string().min(1).optional().openapi({ description: 'The reference image by URL (https, or a genmedia file URL) instead of a file' }),
});

export const VideoCreateRequestSchema = VideoCreateFieldsSchema.extend({
  input_reference: binary().optional().openapi({ description: 'The image the video starts from, for a model whose catalog mapping takes one' }),
}).openapi('OpenAiVideoCreateRequest');

export const OpenAiVideoSchema = z
  .object({
    id: z.string().openapi({ description: 'The id of the genmedia job' }),
    object: z.literal('video'),
    model: z.string().openapi({ description: "The model's slug" }),
    status: z.enum(['queued', 'in_progress', 'completed', 'failed']),
    progress: z.number().int(),
    prompt: z.string().nullable(),
    seconds: z.string().nullable().openapi({ description: 'The listed length the input matches' }),
    size: z.string().nullable().openapi({ description: 'The listed size the input matches' }),
    created_at: z.number().int(),
    completed_at: z.number().int().nullable(),
    expires_at: z.number().int().nullable().openapi({ description: "When the content is deleted (the job's output retention)" }),
    error: z.object({ code: z.string(), message: z.string() }).nullable(),
    remixed_from_video_id: z.null(),
  })
  .openapi('OpenAiVideo');

export const VideoListQuerySchema = z.strictObject({
  after: z.string().min(1).optional().openapi({ description: 'The id of the last video of the previous page' }),
  limit: z.coerce.number().int().min(1).max(100).default(20),
  order: z.enum(['asc', 'desc']).default('desc'),
});

export const OpenAiVideoListSchema = z
  .object({
    object: z.literal('list'),
    data: z.array(OpenAiVideoSchema),
    first_id: z.string().nullable(),
    last_id: z.string().nullable(),
    has_more: z.boolean(),
  })
  .openapi('OpenAiVideoList');

export const VideoContentQuerySchema = z.strictObject({
  variant: z.string().optional().openapi({ description: 'Only `video` (the default) is available' }),
});
