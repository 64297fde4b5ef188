import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Router, type Request, type RequestHandler } from 'express';
import { z } from 'zod';
import { getAuth, requireApiKey } from '../auth';
import type { ApiDeps } from '../deps';
import { bearerAuth, errorResponses, registry, storageResponse } from '../openapi';
import type { BodyReaders } from '../middleware/requestBodies';
import { isMultipart, MULTIPART_OVERHEAD_BYTES, receiveBody, receiveFileParts, type ReceivedFile } from '../receiveFiles';
import { parseWith } from '../validate';
import { OutputParamsSchema, OutputProvenanceSchema, ProvenanceCheckFormSchema, ProvenanceVerificationSchema } from '../../contracts/http/provenance';
import { C2PA_MANIFEST_TYPE } from '../../shared/provenance';
import { OUTPUT_CONTENT_TYPES } from '../../providers/outputs';
import { MediaStructureRefused, SIDECAR_MANIFEST_MAX_BYTES, type ProvenanceService } from '../../provenance/service';
import { VerificationsBusy } from '../../provenance/verificationGate';
import { VerificationTimedOut } from '../../provenance/verifierPool';
import { ApiError } from '../apiError';

const security = [{ [bearerAuth.name]: [] }];

registry.registerPath({
  method: 'get',
  path: '/v1/jobs/{jobId}/outputs/{n}',
  operationId: 'getJobOutput',
  tags: ['Jobs'],
  summary: "Download a job's output",
  description:
    'Redirects (302) to a signed storage URL of output `n` (1 for the first). An output whose Content Credentials are in a sidecar (WebM) ' +
    'names it in `Link: <url>; rel="c2pa-manifest"`. Scope: `check_status`.',
  security,
  request: { params: OutputParamsSchema },
  responses: {
    302: {
      description: 'Redirect to the bytes',
      headers: z.object({
        Location: z.string().url(),
        Link: z.string().optional().openapi({ description: 'The sidecar manifest, for outputs that carry none inside: `<url>; rel="c2pa-manifest"`' }),
      }),
    },
    200: storageResponse(
      'After following the redirect: the bytes, served by storage',
      Object.fromEntries(OUTPUT_CONTENT_TYPES.map((type) => [type, { schema: z.string().openapi({ format: 'binary' }) }])),
    ),
    ...errorResponses(401, 403, 404),
  },
});

registry.registerPath({
  method: 'get',
  path: '/v1/jobs/{jobId}/outputs/{n}/provenance',
  operationId: 'getOutputProvenance',
  tags: ['Provenance'],
  summary: "An output's Content Credentials",
  description:
    "Reads and validates the C2PA manifest of output `n` (1 for the first) as it is stored: the validation state, the signer, the assertions and the ingredients (an upstream's own manifest). " +
    'An output of an account with provenance off reports `hasManifest: false`. Scope: `check_status`.',
  security,
  request: { params: OutputParamsSchema },
  responses: {
    200: { description: 'The manifest report', content: { 'application/json': { schema: OutputProvenanceSchema } } },
    ...errorResponses(401, 403, 404, 422, 429, 503),
  },
});

registry.registerPath({
  method: 'post',
  path: '/v1/provenance/verify',
  operationId: 'verifyProvenance',
  tags: ['Provenance'],
  summary: 'Check the Content Credentials of a file',
  description:
    'The body is the file itself (PNG, JPEG, WebP, MP4 or WebM; up to upstreams.maxOutputBytes), or a `multipart/form-data` body with the file in the part `file` ' +
    'and, optionally, its sidecar manifest (a WebM output\'s `.c2pa`, up to 1 MiB) in the part `manifest`, against which the file is then checked. ' +
    'Answers whether it carries a C2PA manifest (embedded, or in the sidecar sent), whether the manifest is valid ' +
    "(one changed byte makes it invalid, and so does another file's sidecar), whether it was signed by this deployment's chain, and, for an output of the caller's own account, which job and output it is. " +
    'A file of another account is only reported as signed by this service. A WebM sent without its sidecar carries no manifest. ' +
    'Refused: a part other than `file` and `manifest`, a part sent twice or as a text field, a missing or empty `file` (VALIDATION_ERROR); a file of another type (INVALID_CONTENT_TYPE); ' +
    'a `manifest` that is no C2PA manifest store (INVALID_MANIFEST); a part over its limit (PAYLOAD_TOO_LARGE). Scope: `check_status`.',
  security,
  request: {
    body: {
      required: true,
      content: {
        ...Object.fromEntries(['application/octet-stream', ...OUTPUT_CONTENT_TYPES].map((type) => [type, { schema: z.string().openapi({ format: 'binary' }) }])),
        'multipart/form-data': {
          schema: ProvenanceCheckFormSchema,
          encoding: { file: { contentType: ['application/octet-stream', ...OUTPUT_CONTENT_TYPES].join(', ') }, manifest: { contentType: `${C2PA_MANIFEST_TYPE}, application/octet-stream` } },
        },
      },
    },
  },
  responses: {
    200: { description: 'What the file proves', content: { 'application/json': { schema: ProvenanceVerificationSchema } } },
    ...errorResponses(401, 403, 408, 413, 422, 429, 503),
  },
});

function fileTooLarge(limit: number): ApiError {
  return new ApiError('PAYLOAD_TOO_LARGE', `The file is over the ${limit} byte limit of outputs`, { maxBytes: limit });
}

/** The file to check and, in a multipart body, its sidecar manifest; both on disk in `dir`. */
async function receiveCheck(req: Request, dir: string, fileLimit: number): Promise<{ file: ReceivedFile; manifest?: ReceivedFile }> {
  if (!isMultipart(req.headers)) {
    const file = await receiveBody(req, path.join(dir, 'file'), fileLimit, () => fileTooLarge(fileLimit));
    if (file.bytes === 0) throw new ApiError('VALIDATION_ERROR', 'Invalid request: send the file to check as the request body');
    return { file };
  }
  const parts = await receiveFileParts(req, dir, {
    file: { limitBytes: fileLimit, label: 'The file' },
    manifest: { limitBytes: SIDECAR_MANIFEST_MAX_BYTES, label: 'The sidecar manifest' },
  });
  const file = parts.get('file');
  const manifest = parts.get('manifest');
  if (!file) throw new ApiError('VALIDATION_ERROR', 'Invalid request: the part file (the file to check) is missing', [{ path: 'file', message: 'missing' }]);
  if (file.bytes === 0) throw new ApiError('VALIDATION_ERROR', 'Invalid request: the part file is empty', [{ path: 'file', message: 'empty' }]);
  if (manifest?.bytes === 0) throw new ApiError('VALIDATION_ERROR', 'Invalid request: the part manifest is empty', [{ path: 'manifest', message: 'empty' }]);
  return { file, ...(manifest ? { manifest } : {}) };
}

/** The provenance feature's refusals, as the API answers them. */
function asApiError(err: unknown): unknown {
  if (err instanceof VerificationsBusy) {
    return err.scope === 'account'
      ? new ApiError('CONCURRENT_VERIFICATIONS_EXCEEDED', `This account already has ${err.max} file checks running; retry when one has answered`, { max: err.max }, { 'Retry-After': '1' })
      : new ApiError('SERVICE_UNAVAILABLE', 'The service is checking as many files as it can at once; retry shortly', { max: err.max }, { 'Retry-After': '2' });
  }
  if (err instanceof MediaStructureRefused) return new ApiError('MEDIA_STRUCTURE_REFUSED', err.message, { limit: err.refusal.limit, max: err.refusal.max });
  if (err instanceof VerificationTimedOut) {
    return new ApiError('VERIFICATION_TIMEOUT', `The file could not be checked within ${err.timeLimitMs} ms`, { timeLimitMs: err.timeLimitMs });
  }
  return err;
}

async function refusalsAsErrors<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    throw asApiError(err);
  }
}

function refusalsAsErrorsSync<T>(fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    throw asApiError(err);
  }
}

export function provenanceRouter(deps: ApiDeps, provenance: ProvenanceService, bodies: BodyReaders): Router {
  const router = Router();
  const statusScope = requireApiKey(deps.keys, { credential: 'bearer', scope: 'check_status' });
  const paramsOf = (params: unknown) => parseWith(OutputParamsSchema, params, 'VALIDATION_ERROR', 'path');

  router.get('/v1/jobs/:jobId/outputs/:n', statusScope, async (req, res) => {
    const { jobId, n } = paramsOf(req.params);
    const target = await provenance.outputDownload(getAuth(res).account.id, jobId, n);
    if (target.manifestUrl) res.setHeader('Link', `<${target.manifestUrl}>; rel="c2pa-manifest"`);
    res.setHeader('Cache-Control', 'private, no-store');
    res.redirect(302, target.url);
  });

  router.get('/v1/jobs/:jobId/outputs/:n/provenance', statusScope, async (req, res) => {
    const { jobId, n } = paramsOf(req.params);
    res.json(await refusalsAsErrors(() => provenance.outputProvenance(getAuth(res).account.id, jobId, n)));
  });

  const fileLimit = deps.config.upstreams.maxOutputBytes;
  // A slot is taken before the body is read: a refused check costs no disk, and the slots bound the disk that
  // checks take (each at most the file's and the sidecar's limits).
  const admit: RequestHandler = (_req, res, next) => {
    const release = refusalsAsErrorsSync(() => provenance.admitVerification(getAuth(res).account.id));
    res.once('close', release);
    next();
  };
  const body = bodies.stream(fileLimit + SIDECAR_MANIFEST_MAX_BYTES + MULTIPART_OVERHEAD_BYTES);
  router.post('/v1/provenance/verify', statusScope, admit, ...body, async (req, res) => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'genmedia-verify-'));
    try {
      const { file, manifest } = await receiveCheck(req, dir, fileLimit);
      res.json(await refusalsAsErrors(() => provenance.verify(getAuth(res).account.id, file, manifest)));
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  return router;
}
