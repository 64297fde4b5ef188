import { Router } from 'express';
import { getAuth, requireApiKey } from '../auth';
import type { ApiDeps } from '../deps';
import type { BodyReaders } from '../middleware/requestBodies';
import { bearerAuth, errorResponses, registry } from '../openapi';
import { parseWith } from '../validate';
import {
  FileIdParamsSchema,
  PresignRequestSchema,
  PresignResponseSchema,
  UploadStatusResponseSchema,
} from '../../contracts/http/uploads';
import { ApiError } from '../apiError';
import { isFileId } from '../../shared/fileIds';
import { isUploadContentType, UPLOAD_CONTENT_TYPES } from '../../shared/media';
import type { UploadService } from '../../uploads/service';

registry.registerPath({
  method: 'post',
  path: '/v1/uploads/presign',
  operationId: 'presignUpload',
  tags: ['Uploads'],
  summary: 'Create a presigned upload',
  description:
    'Returns a presigned PUT URL valid for 15 minutes that accepts only the declared Content-Type (and, with `size`, ' +
    'exactly that many bytes), and the fileUrl to use in job inputs. The file is deleted at expiresAt (60 minutes ' +
    'after creation). An account may hold at most uploads.maxOpenPerAccount open uploads reserving at most ' +
    'uploads.maxOpenBytesPerAccount bytes (429 RATE_LIMIT_EXCEEDED, Retry-After until the oldest expires). Scope: `upload`.',
  security: [{ [bearerAuth.name]: [] }],
  request: { body: { required: true, content: { 'application/json': { schema: PresignRequestSchema } } } },
  responses: {
    200: { description: 'Upload created', content: { 'application/json': { schema: PresignResponseSchema } } },
    ...errorResponses(400, 401, 403, 408, 413, 429, 503),
  },
});

registry.registerPath({
  method: 'get',
  path: '/v1/uploads/{fileId}',
  operationId: 'getUpload',
  tags: ['Uploads'],
  summary: 'Status of an upload',
  description: 'Only the owning account sees an upload; any other caller gets 404 UPLOAD_NOT_FOUND. Scope: `upload`.',
  security: [{ [bearerAuth.name]: [] }],
  request: { params: FileIdParamsSchema },
  responses: {
    200: { description: 'Upload status', content: { 'application/json': { schema: UploadStatusResponseSchema } } },
    ...errorResponses(401, 403, 404),
  },
});

/** A presign request names a content type, a file name and a size: a few hundred bytes. */
const PRESIGN_BODY_LIMIT = 16 * 1024;

export function uploadsRouter(deps: ApiDeps, uploads: UploadService, bodies: BodyReaders): Router {
  const router = Router();
  const auth = requireApiKey(deps.keys, { credential: 'bearer', scope: 'upload' });

  router.post('/v1/uploads/presign', auth, ...bodies.json(PRESIGN_BODY_LIMIT), async (req, res) => {
    const body = parseWith(PresignRequestSchema, req.body ?? {});
    if (!isUploadContentType(body.contentType)) {
      throw new ApiError('INVALID_CONTENT_TYPE', `contentType "${body.contentType}" is not allowed`, {
        allowed: UPLOAD_CONTENT_TYPES,
      });
    }
    const data = await uploads.presign(getAuth(res).account.id, {
      filename: body.filename,
      contentType: body.contentType,
      size: body.size,
    });
    deps.metrics.uploadPresigns.inc({ content_type: body.contentType });
    if (body.size !== undefined) deps.metrics.uploadDeclaredBytes.inc({ content_type: body.contentType }, body.size);
    res.json({ success: true, data, requestId: res.locals.requestId });
  });

  router.get('/v1/uploads/:fileId', auth, async (req, res) => {
    const fileId = String(req.params.fileId);
    if (!isFileId(fileId)) throw new ApiError('UPLOAD_NOT_FOUND', `Upload ${fileId} not found`);
    const data = await uploads.status(getAuth(res).account.id, fileId);
    res.json({ success: true, data, requestId: res.locals.requestId });
  });

  return router;
}
