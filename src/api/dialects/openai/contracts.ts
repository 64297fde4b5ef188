/** The OpenAI dialect's wire types (the subset of OpenAI's Images and Models APIs genmedia speaks). */
import { z } from '../../../contracts/http/zod';

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
