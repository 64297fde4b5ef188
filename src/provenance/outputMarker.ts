/**
 * Signs a job's outputs before they are stored: the bytes signed are the bytes served. Each output gets the manifest
 * of src/provenance/manifest.ts; the account's provenance switch (an operator's) leaves its outputs as generated,
 * and its prompt switch lets the prompt into the manifest. A type the library cannot embed into gets a sidecar.
 */
import { stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { GeneratedFile } from '../providers/types';
import { signAsset } from './c2pa';
import { manifestDefinition } from './manifest';
import type { ContentSigner } from './signer';

/** What the manifest says of a job, and whether its account has its outputs marked. */
export interface MarkingFacts {
  modelSlug: string;
  version: string;
  providerId: string;
  /** The account's switch: false leaves its outputs unmarked. */
  marked: boolean;
  /** Set only when the account lets its prompts into the manifest. */
  prompt?: string;
}

export interface MarkedFile extends GeneratedFile {
  /** How the output carries its manifest; absent when it carries none of ours. */
  manifest?: { embedded: true } | { embedded: false; sidecarPath: string; sidecarSizeBytes: number };
}

export interface OutputMarker {
  /** The files to store in place of `files`, written into `workDir`. */
  mark(job: { jobId: string; upstreamModel?: string }, files: GeneratedFile[], workDir: string): Promise<MarkedFile[]>;
}

export interface OutputMarkerDeps {
  signer: ContentSigner;
  /** The claim generator: genmedia and its version. */
  generator: { name: string; version: string };
  facts(jobId: string): Promise<MarkingFacts>;
  now?: () => Date;
}

export function createOutputMarker(deps: OutputMarkerDeps): OutputMarker {
  const now = deps.now ?? (() => new Date());
  return {
    async mark(job, files, workDir) {
      const facts = await deps.facts(job.jobId);
      if (!facts.marked) return files;
      const marked: MarkedFile[] = [];
      for (const [index, file] of files.entries()) {
        const outputPath = path.join(workDir, `signed-${index + 1}${path.extname(file.path)}`);
        const definition = manifestDefinition(
          {
            jobId: job.jobId,
            output: index + 1,
            modelSlug: facts.modelSlug,
            version: facts.version,
            route: { provider: facts.providerId, ...(job.upstreamModel ? { upstreamModel: job.upstreamModel } : {}) },
            signedAt: now(),
            ...(facts.prompt !== undefined ? { prompt: facts.prompt } : {}),
          },
          deps.generator,
          file.contentType,
        );
        const signed = await signAsset({ signer: deps.signer, definition, inputPath: file.path, contentType: file.contentType, outputPath });
        const { size } = await stat(outputPath);
        if (signed.embedded) {
          marked.push({ ...file, path: outputPath, sizeBytes: size, manifest: { embedded: true } });
        } else {
          const sidecarPath = `${outputPath}.c2pa`;
          await writeFile(sidecarPath, signed.manifest);
          marked.push({ ...file, path: outputPath, sizeBytes: size, manifest: { embedded: false, sidecarPath, sidecarSizeBytes: signed.manifest.length } });
        }
      }
      return marked;
    },
  };
}
