/**
 * The provenance use cases of the API: the Content Credentials of a job's output, and the check of any file against
 * this deployment's chain. Files are read from storage or the request into a temporary directory, never whole into
 * memory.
 */
import { createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { OutputProvenance, ProvenanceVerification } from '../contracts/http/provenance';
import type { PrismaClient } from '../db/prisma';
import { sniffMediaType } from '../lib/mediaTypes';
import { OUTPUT_CONTENT_TYPES } from '../providers/outputs';
import { DomainError } from '../shared/errors';
import type { JobOutput } from '../shared/jobs';
import type { Storage } from '../storage/storage';
import type { ReadOutcome } from './c2pa';
import { C2PA_MANIFEST_TYPE } from '../shared/provenance';
import { opensManifestStore } from './manifest';
import { checkMediaStructure, type StructureRefusal } from './mediaStructure';
import { genmediaAssertionOf, toReport } from './report';
import { createVerificationGate, VERIFICATION_LIMITS, type VerificationLimits } from './verificationGate';
import { createVerifierPool, type VerifierPool } from './verifierPool';

export interface ProvenanceServiceDeps {
  prisma: PrismaClient;
  storage: Pick<Storage, 'outputsBucket' | 'getStream' | 'presignGet'>;
  /** This deployment's trust anchors (PEM); without them nothing counts as signed by this service. */
  trustAnchorsPem?: string;
  outputUrlTtlSeconds: number;
  /** How many verifications run at once and for how long; VERIFICATION_LIMITS unless a test sets them. */
  verificationLimits?: Partial<VerificationLimits>;
  /** Where manifests are read; verifier processes of this service's own by default. */
  verifier?: VerifierPool;
}

/** A file refused before the C2PA library saw it: more boxes, or deeper, than a real MP4 or WebM has. */
export class MediaStructureRefused extends Error {
  constructor(readonly refusal: StructureRefusal) {
    super(
      refusal.limit === 'depth'
        ? `The file nests its boxes deeper than ${refusal.max} levels, which no real MP4 or WebM does`
        : `The file has more than ${refusal.max} boxes${refusal.limit === 'topLevel' ? ' at its top level' : ''}, which no real MP4 or WebM has`,
    );
    this.name = 'MediaStructureRefused';
  }
}

export interface ProvenanceService {
  /**
   * A slot for one verification of the account, taken before its file is read; the function answered releases it.
   * Throws VerificationsBusy when the account's share or the process's is taken.
   */
  admitVerification(accountId: string): () => void;
  /** Signed storage URLs of output `n` and of its sidecar manifest, if it has one. */
  outputDownload(accountId: string, jobId: string, n: number): Promise<{ url: string; manifestUrl: string | null }>;
  outputProvenance(accountId: string, jobId: string, n: number): Promise<OutputProvenance>;
  /**
   * Checks a received file against its embedded manifest or, when `sidecar` is given, against that manifest store
   * (a WebM's `.c2pa`). Throws INVALID_MANIFEST when the sidecar is no C2PA manifest store, MediaStructureRefused for
   * a file of more boxes than a real one has, VerificationTimedOut past the time limit. Call within admitVerification.
   */
  verify(accountId: string, file: ReceivedFile, sidecar?: ReceivedFile): Promise<ProvenanceVerification>;
}

/** A file already received onto disk, and its first bytes (at least 20, when it has them). */
export interface ReceivedFile {
  path: string;
  head: Buffer;
}

/** The largest sidecar manifest a check takes: ours are a few kilobytes (certificates and assertions, no thumbnail). */
export const SIDECAR_MANIFEST_MAX_BYTES = 1024 * 1024;

function notAManifest(): DomainError {
  return new DomainError('INVALID_MANIFEST', 'The part manifest is not a C2PA manifest store (the .c2pa sidecar of a WebM output)', [{ path: 'manifest', message: 'not a C2PA manifest store' }]);
}

function outputNotFound(jobId: string, n: number): DomainError {
  return new DomainError('OUTPUT_NOT_FOUND', `Job ${jobId} has no output ${n}: it is not completed, its outputs were deleted, or it has fewer`);
}

/** Reports of stored outputs kept in memory: an output never changes once stored, so its report does not either. */
const REPORT_CACHE_ENTRIES = 1_000;

export function createProvenanceService(deps: ProvenanceServiceDeps): ProvenanceService {
  const { storage } = deps;
  const limits = { ...VERIFICATION_LIMITS, ...deps.verificationLimits };
  const gate = createVerificationGate(limits);
  const verifier = deps.verifier ?? createVerifierPool({ timeLimitMs: limits.timeLimitMs });
  const trust = deps.trustAnchorsPem ? { trustAnchorsPem: deps.trustAnchorsPem } : {};
  /** By output key (a job's output is stored once under its own key); oldest first, so the first is evicted. */
  const reports = new Map<string, ReturnType<typeof toReport>>();

  /** The manifest of a file on disk, after its structure passed, in a verifier process within the time limit. */
  async function read(file: string, mimeType: string, sidecarPath?: string): Promise<ReadOutcome> {
    const refusal = await checkMediaStructure(file, mimeType);
    if (refusal) throw new MediaStructureRefused(refusal);
    return verifier.read({ path: file, mimeType }, { ...(sidecarPath ? { sidecarPath } : {}), ...trust });
  }

  async function withTempDir<T>(fn: (dir: string) => Promise<T>): Promise<T> {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'genmedia-provenance-'));
    try {
      return await fn(dir);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }

  async function download(key: string, target: string, jobId: string, n: number): Promise<void> {
    const body = await storage.getStream(storage.outputsBucket, key);
    if (!body) throw outputNotFound(jobId, n);
    await pipeline(body, createWriteStream(target));
  }

  /** The account's job's output `n`, stored and not deleted. */
  async function outputOf(accountId: string, jobId: string, n: number): Promise<JobOutput> {
    const job = await deps.prisma.job.findUnique({ where: { id: jobId }, select: { accountId: true, status: true, outputs: true, outputsDeletedAt: true } });
    if (!job || job.accountId !== accountId) throw new DomainError('JOB_NOT_FOUND', `Job ${jobId} not found`);
    const outputs = (job.outputs ?? []) as unknown as JobOutput[];
    const output = job.status === 'completed' && job.outputsDeletedAt === null ? outputs[n - 1] : undefined;
    if (!output) throw outputNotFound(jobId, n);
    return output;
  }

  const signedUrl = (key: string, contentType: string) => storage.presignGet(storage.outputsBucket, key, deps.outputUrlTtlSeconds, { contentType });

  return {
    async outputDownload(accountId, jobId, n) {
      const output = await outputOf(accountId, jobId, n);
      return {
        url: await signedUrl(output.key, output.contentType),
        manifestUrl: output.manifestKey ? await signedUrl(output.manifestKey, C2PA_MANIFEST_TYPE) : null,
      };
    },

    admitVerification: (accountId) => gate.admit(accountId),

    async outputProvenance(accountId, jobId, n) {
      const output = await outputOf(accountId, jobId, n);
      const cacheKey = `${output.key}\n${output.manifestKey ?? ''}`;
      let report = reports.get(cacheKey);
      if (!report) {
        const release = gate.admit(accountId);
        try {
          report = await withTempDir(async (dir) => {
            const file = path.join(dir, 'output');
            await download(output.key, file, jobId, n);
            const sidecar = output.manifestKey ? path.join(dir, 'output.c2pa') : undefined;
            if (sidecar) await download(output.manifestKey!, sidecar, jobId, n);
            return toReport(await read(file, output.contentType, sidecar), output.manifestKey ? 'sidecar' : 'embedded');
          });
        } finally {
          release();
        }
        reports.set(cacheKey, report);
        if (reports.size > REPORT_CACHE_ENTRIES) reports.delete(reports.keys().next().value!);
      }
      const manifestUrl = output.manifestKey ? await signedUrl(output.manifestKey, C2PA_MANIFEST_TYPE) : null;
      return { jobId, output: n, contentType: output.contentType, manifestUrl, ...report };
    },

    async verify(accountId, file, sidecar) {
      const mimeType = sniffMediaType(file.head);
      if (!mimeType || !OUTPUT_CONTENT_TYPES.includes(mimeType)) {
        throw new DomainError('INVALID_CONTENT_TYPE', `The file is not one of the types outputs are served as: ${OUTPUT_CONTENT_TYPES.join(', ')}`);
      }
      if (sidecar && !opensManifestStore(sidecar.head)) throw notAManifest();
      const outcome = await read(file.path, mimeType, sidecar?.path);
      // A store the library finds no manifest in is no sidecar; one it cannot parse is reported invalid, as embedded.
      if (sidecar && outcome.kind === 'none') throw notAManifest();
      const report = toReport(outcome, sidecar ? 'sidecar' : 'embedded');
      const claimed = report.signedByThisService ? genmediaAssertionOf(report) : null;
      let job: ProvenanceVerification['job'] = null;
      if (claimed && typeof claimed.jobId === 'string') {
        // Only the account's own jobs are named; another account's file is "issued by this service" and no more.
        const row = await deps.prisma.job.findUnique({ where: { id: claimed.jobId }, select: { accountId: true } });
        if (row?.accountId === accountId) job = { jobId: claimed.jobId, output: claimed.output };
      }
      return { hasManifest: report.hasManifest, valid: report.valid, signedByThisService: report.signedByThisService, job, report };
    },
  };
}
