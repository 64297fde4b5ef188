import { createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { Router } from 'express';
import { z } from 'zod';
import { getAuth, requireApiKey } from '../auth';
import type { ApiDeps } from '../deps';
import { bearerAuth, errorResponses, registry, storageResponse } from '../openapi';
import { parseWith } from '../validate';
import { OutputParamsSchema, OutputProvenanceSchema, ProvenanceVerificationSchema } from '../../contracts/http/provenance';
import { OUTPUT_CONTENT_TYPES } from '../../providers/outputs';
import type { ProvenanceService } from '../../provenance/service';
import { ApiError } from '../../shared/errors';

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
    ...errorResponses(401, 403, 404),
  },
});

registry.registerPath({
  method: 'post',
  path: '/v1/provenance/verify',
  operationId: 'verifyProvenance',
  tags: ['Provenance'],
  summary: 'Check the Content Credentials of a file',
  description:
    'The body is the file itself (PNG, JPEG, WebP, MP4 or WebM; up to UPSTREAM_MAX_OUTPUT_BYTES). Answers whether it carries a C2PA manifest, whether the manifest is valid ' +
    "(one changed byte makes it invalid), whether it was signed by this deployment's chain, and, for an output of the caller's own account, which job and output it is. " +
    "A file of another account is only reported as signed by this service. WebM carries its manifest in a sidecar, not in the file: check it with `GET /v1/jobs/{jobId}/outputs/{n}/provenance`. Scope: `check_status`.",
  security,
  request: {
    body: {
      required: true,
      content: Object.fromEntries(['application/octet-stream', ...OUTPUT_CONTENT_TYPES].map((type) => [type, { schema: z.string().openapi({ format: 'binary' }) }])),
    },
  },
  responses: {
    200: { description: 'What the file proves', content: { 'application/json': { schema: ProvenanceVerificationSchema } } },
    ...errorResponses(401, 403, 413),
  },
});

/** Counts the bytes through it and fails once they pass `limit`. */
function byteLimit(limit: number, seen: { bytes: number; head: Buffer }): Transform {
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      seen.bytes += chunk.length;
      if (seen.head.length < 16) seen.head = Buffer.concat([seen.head, chunk.subarray(0, 16 - seen.head.length)]);
      if (seen.bytes > limit) done(tooLarge(limit));
      else done(null, chunk);
    },
  });
}

function tooLarge(limit: number): ApiError {
  return new ApiError('PAYLOAD_TOO_LARGE', `The file is over the ${limit} byte limit of outputs`);
}

/** The request body into `file`, at most `limit` bytes; answers its size and first bytes. */
async function receiveFile(req: Readable & { headers: Record<string, unknown> }, file: string, limit: number): Promise<{ bytes: number; head: Buffer }> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) throw tooLarge(limit);
  const seen = { bytes: 0, head: Buffer.alloc(0) };
  await pipeline(req, byteLimit(limit, seen), createWriteStream(file));
  return seen;
}

export function provenanceRouter(deps: ApiDeps, provenance: ProvenanceService): Router {
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
    res.json(await provenance.outputProvenance(getAuth(res).account.id, jobId, n));
  });

  router.post('/v1/provenance/verify', statusScope, async (req, res) => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'genmedia-verify-'));
    try {
      const file = path.join(dir, 'file');
      const { bytes, head } = await receiveFile(req, file, deps.config.upstreams.maxOutputBytes);
      if (bytes === 0) throw new ApiError('VALIDATION_ERROR', 'Invalid request: send the file to check as the request body');
      res.json(await provenance.verify(getAuth(res).account.id, file, head));
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  return router;
}
