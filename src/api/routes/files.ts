import { Router } from 'express';
import { z } from 'zod';
import { errorResponses, PUBLIC, registry, storageResponse } from '../openapi';
import { FileIdParamsSchema } from '../../contracts/http/uploads';
import { ApiError } from '../apiError';
import { isFileId } from '../../shared/fileIds';
import { UPLOAD_CONTENT_TYPES } from '../../shared/media';
import type { UploadService } from '../../uploads/service';

/** Longest life of the storage URL a file redirect hands out; never beyond the file's own expiry. */
const REDIRECT_URL_SECONDS = 300;

registry.registerPath({
  method: 'get',
  path: '/v1/files/{fileId}',
  operationId: 'getFile',
  tags: ['Uploads'],
  summary: 'Read an uploaded file (the fileUrl)',
  description:
    'No authentication: the fileId is unguessable. Redirects (302) to a short-lived storage URL with the bytes. ' +
    '404 once the file has expired, before it is uploaded, or when it was over its size limit.',
  security: PUBLIC,
  request: { params: FileIdParamsSchema },
  responses: {
    302: { description: 'Redirect to the bytes', headers: z.object({ Location: z.string().url() }) },
    // What a client that follows redirects (most do by default) ends up with.
    200: storageResponse(
      'After following the redirect: the bytes, served by storage with the Content-Type declared at presign',
      Object.fromEntries(UPLOAD_CONTENT_TYPES.map((type) => [type, { schema: z.string().openapi({ format: 'binary' }) }])),
    ),
    ...errorResponses(404),
  },
});

/** RFC 6266 Content-Disposition with an ASCII fallback and the exact UTF-8 name. */
function contentDisposition(filename: string): string {
  const ascii = filename.replace(/[^\x20-\x7e]|["\\]/g, '_');
  return `inline; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(filename)}`;
}

export function filesRouter(uploads: UploadService): Router {
  const router = Router();

  // Express answers HEAD with this handler too.
  router.get('/v1/files/:fileId', async (req, res) => {
    const fileId = String(req.params.fileId);
    const target = isFileId(fileId) ? await uploads.findDownload(fileId) : null;
    if (!target) throw new ApiError('UPLOAD_NOT_FOUND', `File ${fileId} not found or expired`);

    res.set('Cache-Control', 'private, no-store');
    if (req.method === 'HEAD') {
      // A presigned URL is bound to its method, so HEAD is answered here rather than redirected.
      res.set('Content-Type', target.contentType).set('Content-Length', String(target.sizeBytes)).status(200).end();
      return;
    }
    const secondsLeft = Math.ceil((target.expiresAt.getTime() - Date.now()) / 1000);
    const url = await uploads.signDownload(target, Math.max(1, Math.min(REDIRECT_URL_SECONDS, secondsLeft)), contentDisposition(target.filename));
    res.redirect(302, url);
  });

  return router;
}
