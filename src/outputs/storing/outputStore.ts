/**
 * Storing a finished generation's outputs under its job: files a provider generated in the worker, or the files an
 * provider's answer points at (URLs, downloaded through the address guard, or inline data).
 */
import { mkdtemp, open, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { extensionFor, sniffMediaType } from '../../lib/mediaTypes';
import { FetchFileError, fetchToFile } from '../../providers/fetchFile';
import { describeOutputFile, OUTPUT_CONTENT_TYPES } from '../../providers/outputs';
import { ProviderError, type GeneratedFile, type GenerationSnapshot } from '../../providers/types';
import { locateOutputs } from './outputPaths';
import { C2PA_MANIFEST_TYPE } from '../../shared/provenance';
import type { MarkedFile, OutputMarker } from '../../provenance/outputMarker';
import type { JobOutput } from '../../shared/jobs';
import type { UpstreamMapping } from '../../shared/upstreams';

export interface OutputStoreDeps {
  putOutput(key: string, filePath: string, contentType: string): Promise<void>;
  /** The largest output file, downloaded or inline (upstreams.maxOutputBytes). */
  maxOutputBytes: number;
  /** Output URLs may be at private and loopback addresses (development and tests; INPUT_FETCH_ALLOW_PRIVATE). */
  allowPrivateOutputs: boolean;
  /** Headers an output URL needs (Google's key), sent to that URL's origin only. */
  outputHeaders?(url: string): Record<string, string> | undefined;
  /** Signs each output before it is stored (Content Credentials); absent, outputs are stored as generated. */
  marker?: OutputMarker;
}

/** The job whose outputs are stored, and the model on the route that made them when it ran on one. */
export interface OutputOwner {
  jobId: string;
  upstreamModel?: string;
}

/** Object key of a job's n-th output: everything of a job lives under `<jobId>/`. */
export function outputKey(jobId: string, index: number, contentType: string): string {
  return `${jobId}/output-${index + 1}.${extensionFor(contentType)}`;
}

export function toOutput(jobId: string, file: MarkedFile, index: number): JobOutput {
  const output: JobOutput = { key: outputKey(jobId, index, file.contentType), contentType: file.contentType, sizeBytes: file.sizeBytes };
  if (file.width !== undefined) output.width = file.width;
  if (file.height !== undefined) output.height = file.height;
  if (file.durationSeconds !== undefined) output.durationSeconds = file.durationSeconds;
  if (file.manifest?.embedded) output.manifest = 'embedded';
  if (file.manifest?.embedded === false) {
    Object.assign(output, { manifest: 'sidecar', manifestKey: `${output.key}.c2pa`, manifestSizeBytes: file.manifest.sidecarSizeBytes });
  }
  return output;
}

export function createOutputStore(deps: OutputStoreDeps) {
  /** Signs the files (when a marker is configured), then stores them: the job record describes the stored bytes. */
  async function storeFiles(owner: OutputOwner, files: GeneratedFile[], afterEach?: () => void): Promise<JobOutput[]> {
    if (files.length === 0) throw new ProviderError('BAD_OUTPUT', 'The provider produced no output', { retryable: false });
    const workDir = deps.marker ? await mkdtemp(path.join(os.tmpdir(), `genmedia-${owner.jobId}-signed-`)) : undefined;
    try {
      const stored: MarkedFile[] = deps.marker ? await deps.marker.mark(owner, files, workDir!) : files;
      const outputs: JobOutput[] = [];
      for (const [index, file] of stored.entries()) {
        const output = toOutput(owner.jobId, file, index);
        await deps.putOutput(output.key, file.path, file.contentType);
        if (output.manifestKey && file.manifest?.embedded === false) await deps.putOutput(output.manifestKey, file.manifest.sidecarPath, C2PA_MANIFEST_TYPE);
        outputs.push(output);
        afterEach?.();
      }
      return outputs;
    } finally {
      if (workDir) await rm(workDir, { recursive: true, force: true });
    }
  }

  /** Downloads or decodes every output the mapping locates in the provider's answer and stores it under the job. */
  async function storeLocated(owner: OutputOwner, mapping: UpstreamMapping | undefined, result: unknown, signal: AbortSignal): Promise<JobOutput[]> {
    const { jobId } = owner;
    const locations = mapping ? locateOutputs(result, mapping.outputs, mapping.outputContentType) : [];
    if (locations.length === 0) {
      throw new ProviderError('BAD_OUTPUT', `the upstream reported success without outputs at ${mapping?.outputs.join(', ') ?? 'its mapping'}`, {
        retryable: false,
      });
    }
    const workDir = await mkdtemp(path.join(os.tmpdir(), `genmedia-${jobId}-`));
    try {
      const files: GeneratedFile[] = [];
      for (const [index, location] of locations.entries()) {
        const target = path.join(workDir, `output-${index + 1}`);
        let contentType: string | undefined;
        if (location.kind === 'inline') {
          // The limit a URL output meets as it downloads, and the same failure.
          if (location.data.length > deps.maxOutputBytes) {
            throw new ProviderError('BAD_OUTPUT', `output ${index + 1} is ${location.data.length} bytes, over the ${deps.maxOutputBytes} byte limit`, {
              retryable: false,
            });
          }
          await writeFile(target, location.data);
          contentType = location.contentType ?? sniffMediaType(location.data.subarray(0, 16));
        } else {
          contentType = await download(location.url, target, signal);
        }
        if (!contentType) throw new ProviderError('BAD_OUTPUT', `output ${index + 1} is of an unknown type`, { retryable: false });
        files.push(await describeOutputFile(target, contentType, signal));
      }
      return await storeFiles(owner, files);
    } finally {
      await rm(workDir, { recursive: true, force: true });
    }
  }

  /**
   * Fetches one output URL through the address guard, the adapter's headers (a key) to that URL's origin only; the
   * type comes from the answer, or from the bytes when the server does not say.
   */
  async function download(url: string, target: string, signal: AbortSignal): Promise<string | undefined> {
    try {
      const fetched = await fetchToFile(url, target, {
        signal,
        maxBytes: deps.maxOutputBytes,
        allowedContentTypes: [...OUTPUT_CONTENT_TYPES, 'application/octet-stream', 'binary/octet-stream'],
        timeoutMs: 300_000,
        headers: deps.outputHeaders?.(url),
        allowPrivate: deps.allowPrivateOutputs,
      });
      if (OUTPUT_CONTENT_TYPES.includes(fetched.contentType)) return fetched.contentType;
      const handle = await open(target, 'r');
      try {
        const head = Buffer.alloc(16);
        await handle.read(head, 0, 16, 0);
        return sniffMediaType(head);
      } finally {
        await handle.close();
      }
    } catch (error) {
      if (signal.aborted || !(error instanceof FetchFileError)) throw error;
      const refusedStatus = error.status !== undefined && error.status < 500 && error.status !== 429 && error.status !== 408;
      const permanent = error.kind === 'too-large' || error.kind === 'content-type' || error.kind === 'blocked' || refusedStatus;
      throw new ProviderError(permanent ? 'BAD_OUTPUT' : 'PROVIDER_UNAVAILABLE', `output download failed: ${error.message}`, {
        retryable: !permanent,
        cause: error,
      });
    }
  }

  return {
    storeFiles,
    /** The outputs of a succeeded generation, wherever they are. */
    store(jobId: string, mapping: UpstreamMapping | undefined, snapshot: GenerationSnapshot, signal: AbortSignal): Promise<JobOutput[]> {
      const owner: OutputOwner = { jobId, ...(mapping ? { upstreamModel: mapping.model } : {}) };
      return snapshot.files ? storeFiles(owner, snapshot.files) : storeLocated(owner, mapping, snapshot.result, signal);
    },
  };
}

export type OutputStore = ReturnType<typeof createOutputStore>;
