import { z } from './zod';
import { filenameProblem, MAX_FILENAME_LENGTH } from '../../shared/uploadFilename';
import { UPLOAD_CONTENT_TYPES } from '../../shared/media';

export const PresignRequestSchema = z
  .strictObject({
    filename: z
      .string({ error: 'filename is required and must be a string' })
      .superRefine((value, ctx) => {
        const problem = filenameProblem(value);
        if (problem) ctx.addIssue({ code: 'custom', message: problem });
      })
      .openapi({ description: `Plain file name, 1–${MAX_FILENAME_LENGTH} characters, no path or control characters`, example: 'scene.png' }),
    // Membership in the allowed list is checked after parsing, to answer INVALID_CONTENT_TYPE rather than VALIDATION_ERROR.
    contentType: z
      .string({ error: 'contentType is required and must be a string' })
      .min(1, 'contentType must not be empty')
      .openapi({ enum: [...UPLOAD_CONTENT_TYPES], example: 'image/png' }),
    size: z
      .number({ error: 'size must be a number of bytes' })
      .int('size must be a whole number of bytes')
      .positive('size must be at least 1 byte')
      .optional()
      .openapi({
        description:
          'The file size in bytes. When given, the PUT must send exactly this many bytes (the URL signs `Content-Length`) ' +
          'and `maxSize` is this size; over the limit of the content type it is refused here. Recommended: without it, ' +
          'a file over `maxSize` is stored until it is checked or expires.',
        example: 48213,
      }),
  })
  .openapi('PresignUploadRequest');

export const PresignedUploadSchema = z
  .object({
    uploadUrl: z.string().url().openapi({ description: 'Presigned PUT URL; send the bytes with exactly the declared Content-Type' }),
    fileUrl: z.string().url().openapi({ description: 'URL to use in job inputs once the file is uploaded; valid until expiresAt' }),
    fileId: z.string().openapi({ example: 'file_3kTMd9Qx0vLw7bYz1aR5nC' }),
    expiresAt: z.string().openapi({ format: 'date-time', description: 'When the file is deleted (creation + 60 minutes)' }),
    maxSize: z.number().int().openapi({ description: 'Maximum file size in bytes (1 MB = 1,000,000 bytes)' }),
  })
  .openapi('PresignedUpload');

export const UploadStatusSchema = z
  .object({
    fileId: z.string(),
    filename: z.string(),
    status: z.enum(['awaiting_upload', 'uploaded', 'expired']),
    contentType: z.string(),
    size: z.number().int().nullable().openapi({ description: 'Bytes stored; null unless uploaded' }),
    maxSize: z.number().int(),
    fileUrl: z.string().url(),
    createdAt: z.string().openapi({ format: 'date-time' }),
    expiresAt: z.string().openapi({ format: 'date-time' }),
  })
  .openapi('UploadStatus');

export function envelope<T extends z.ZodType>(data: T, name: string) {
  return z.object({ success: z.literal(true), data, requestId: z.string() }).openapi(name);
}

export const PresignResponseSchema = envelope(PresignedUploadSchema, 'PresignUploadResponse');
export const UploadStatusResponseSchema = envelope(UploadStatusSchema, 'UploadStatusResponse');
export const FileIdParamsSchema = z.object({ fileId: z.string().openapi({ example: 'file_3kTMd9Qx0vLw7bYz1aR5nC' }) });
