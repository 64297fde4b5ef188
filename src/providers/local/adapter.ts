import { writeFile } from 'node:fs/promises';
import { abortError } from '../abort';
import { FfmpegError } from '../media/ffmpeg';
import { isVideoCapability, nominalProcessingSeconds } from '../nominalTime';
import { describeOutputFile } from '../outputs';
import { ProviderError, type GeneratedFile, type GenerationContext, type GenerationRequest, type Generator } from '../types';
import { injectedErrorFor, parseInjectedFailures, stripFailureTokens, wantsBadOutput } from './failureInjection';
import type { InputFileReader } from '../types';
import { defaultInputReader } from './inputFiles';
import { readImageUrl, readPrompt } from './inputs';
import { ProcessingClock } from './processingClock';
import { renderImageEdit } from './imageEdit';
import { renderTextToImage, type RenderedFile } from './textToImage';
import { renderVideo } from './video';

export interface LocalAdapterOptions {
  /** Obey `[fail:...]` prompt tokens (tests and demos); off, they are ordinary prompt text. Default: on. */
  failureInjection?: boolean;
  /** Reads input images (`image_url`, `mask_url`, `characterImages`). Default: public addresses only. */
  readInput?: InputFileReader;
}

interface RenderJob {
  prompt: string;
  input: Record<string, unknown>;
  workDir: string;
  signal: AbortSignal;
  onFraction(fraction: number): void;
}

/** Injected failures happen half-way through the simulated processing time. */
const INJECTED_FAILURE_AT = 0.5;

/**
 * The built-in provider: renders real media on this machine (sharp for images, ffmpeg for video)
 * and takes the spec's nominal processing time × `ctx.timeScale`, or the render time if longer.
 */
export function createLocalAdapter(options: LocalAdapterOptions = {}): Generator {
  const { failureInjection = true, readInput = defaultInputReader() } = options;
  const running = new Map<string, AbortController>();

  function rendererFor(req: GenerationRequest): (job: RenderJob) => Promise<RenderedFile[]> {
    // A text-to-image model that takes an `image_url` (and `mask_url`) edits that image instead.
    if (req.capability === 'text-to-image') return readImageUrl(req.input) ? (job) => renderImageEdit({ ...job, readInput }) : renderTextToImage;
    if (isVideoCapability(req.capability)) {
      if (req.capability.startsWith('image-to-') && !readImageUrl(req.input)) {
        throw new ProviderError('PROVIDER_REJECTED_INPUT', `${req.capability} needs image_url`, { retryable: false });
      }
      return (job) => renderVideo({ ...job, readInput });
    }
    throw new ProviderError('PROVIDER_REJECTED_INPUT', `the local provider does not support capability "${req.capability}"`, {
      retryable: false,
    });
  }

  async function generate(req: GenerationRequest, ctx: GenerationContext): Promise<GeneratedFile[]> {
    const render = rendererFor(req);
    const rawPrompt = readPrompt(req.input);
    const failures = failureInjection ? parseInjectedFailures(rawPrompt) : [];

    const own = new AbortController();
    running.get(req.jobId)?.abort(new ProviderError('PROVIDER_CANCELLED', 'superseded by a newer attempt', { retryable: true }));
    running.set(req.jobId, own);
    const signal = AbortSignal.any([ctx.signal, own.signal]);
    const clock = new ProcessingClock(nominalProcessingSeconds(req.capability) * ctx.timeScale * 1000, signal, ctx.onProgress);
    clock.start();
    try {
      const injected = injectedErrorFor(failures, ctx.attempt, req.providerId);
      if (injected) {
        // A provider that is down refuses at once; the other failures come half-way through.
        if (injected.code !== 'INJECTED_OUTAGE') await clock.waitForTimeFraction(INJECTED_FAILURE_AT);
        throw injected;
      }
      const rendered = await render({
        prompt: failureInjection ? stripFailureTokens(rawPrompt) : rawPrompt,
        input: req.input,
        workDir: ctx.workDir,
        signal,
        onFraction: (f) => clock.setRenderFraction(f),
      });
      if (wantsBadOutput(failures)) await corrupt(rendered);
      const files: GeneratedFile[] = [];
      for (const file of rendered) files.push(await describeOutputFile(file.path, file.contentType, signal));
      await clock.waitForTimeFraction(1);
      clock.finish();
      return files;
    } catch (error) {
      throw classifyRenderError(error, signal);
    } finally {
      clock.stop();
      if (running.get(req.jobId) === own) running.delete(req.jobId);
    }
  }

  async function cancel(jobId: string): Promise<void> {
    running.get(jobId)?.abort(new ProviderError('PROVIDER_CANCELLED', `job ${jobId} was cancelled`, { retryable: false }));
  }

  return { generate, cancel };
}

/** Leaves a file that no decoder accepts, for `[fail:bad-output]`. */
async function corrupt(files: readonly RenderedFile[]): Promise<void> {
  for (const file of files) {
    await writeFile(file.path, 'not a media file');
  }
}

/** What libvips and librsvg say when the picture they were given cannot be drawn: the same input fails every time. */
const RENDERER_REFUSED_INPUT = /corrupt header|glib|XML parse|unable to load|svgload|bad image|unsupported image format/i;

/**
 * A render failure as a provider error. The renderer refusing what it was given is permanent (another attempt
 * fails the same way) and its library text stays in the logs (`cause`), not in the job's error; anything else, a
 * system failure, is retryable.
 */
export function classifyRenderError(error: unknown, signal: AbortSignal): unknown {
  if (signal.aborted) return abortError(signal);
  if (error instanceof ProviderError) return error;
  if (error instanceof FfmpegError) {
    return new ProviderError('PROVIDER_UNAVAILABLE', `video render failed: ${error.message}`, { retryable: true, cause: error });
  }
  const message = error instanceof Error ? error.message : String(error);
  if (RENDERER_REFUSED_INPUT.test(message)) {
    return new ProviderError('PROVIDER_REJECTED_INPUT', 'the input could not be rendered', { retryable: false, cause: error });
  }
  return new ProviderError('PROVIDER_UNAVAILABLE', `local render failed: ${message}`, { retryable: true, cause: error });
}
