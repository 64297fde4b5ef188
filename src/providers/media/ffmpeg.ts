import { spawn } from 'node:child_process';
import { abortError } from '../abort';

export interface RunFfmpegOptions {
  signal: AbortSignal;
  /** Frames the output will have, to turn ffmpeg's progress into a fraction. */
  totalFrames?: number;
  onFraction?(fraction: number): void;
}

export class FfmpegError extends Error {
  constructor(message: string, readonly exitCode: number | null, readonly stderr: string) {
    super(message);
    this.name = 'FfmpegError';
  }
}

const STDERR_LIMIT = 8_000;

/** Runs ffmpeg with `args`; killed (SIGKILL) as soon as `signal` aborts. */
export function runFfmpeg(args: readonly string[], options: RunFfmpegOptions): Promise<void> {
  const fullArgs = ['-hide_banner', '-nostdin', '-nostats', '-loglevel', 'error', '-progress', 'pipe:1', ...args];
  return runProcess('ffmpeg', fullArgs, options.signal, (line) => {
    const match = /^frame=(\d+)/.exec(line);
    if (match && options.totalFrames && options.onFraction) {
      options.onFraction(Math.min(1, Number(match[1]) / options.totalFrames));
    }
  }).then(() => undefined);
}

export interface MediaProbe {
  formatName: string;
  durationSeconds: number;
  bitRate?: number;
  video?: { codec: string; width: number; height: number; pixelFormat?: string; frames?: number };
}

/** Reads container and first video stream facts with ffprobe. */
export async function probeMedia(path: string, signal: AbortSignal): Promise<MediaProbe> {
  const stdout = await runProcess(
    'ffprobe',
    ['-v', 'error', '-print_format', 'json', '-show_format', '-show_streams', path],
    signal,
  );
  const parsed = JSON.parse(stdout) as {
    format?: { format_name?: string; duration?: string; bit_rate?: string };
    streams?: Array<{ codec_type?: string; codec_name?: string; width?: number; height?: number; pix_fmt?: string; nb_frames?: string }>;
  };
  const stream = parsed.streams?.find((s) => s.codec_type === 'video');
  return {
    formatName: parsed.format?.format_name ?? '',
    durationSeconds: Number(parsed.format?.duration ?? NaN),
    bitRate: parsed.format?.bit_rate ? Number(parsed.format.bit_rate) : undefined,
    video: stream
      ? {
          codec: stream.codec_name ?? '',
          width: stream.width ?? 0,
          height: stream.height ?? 0,
          pixelFormat: stream.pix_fmt,
          frames: stream.nb_frames ? Number(stream.nb_frames) : undefined,
        }
      : undefined,
  };
}

function runProcess(
  command: string,
  args: readonly string[],
  signal: AbortSignal,
  onLine?: (line: string) => void,
): Promise<string> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) {
      reject(abortError(signal));
      return;
    }
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let pending = '';
    const onAbort = () => child.kill('SIGKILL');
    signal.addEventListener('abort', onAbort, { once: true });
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      if (!onLine) {
        stdout += chunk;
        return;
      }
      pending += chunk;
      const lines = pending.split('\n');
      pending = lines.pop() ?? '';
      for (const line of lines) onLine(line.trim());
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      if (stderr.length < STDERR_LIMIT) stderr += chunk;
    });
    child.on('error', (error) => {
      signal.removeEventListener('abort', onAbort);
      reject(new FfmpegError(`${command} could not start: ${error.message}`, null, stderr));
    });
    child.on('close', (code) => {
      signal.removeEventListener('abort', onAbort);
      if (signal.aborted) reject(abortError(signal));
      else if (code === 0) resolve(stdout);
      else reject(new FfmpegError(`${command} exited with code ${code}: ${stderr.trim().slice(0, 500)}`, code, stderr));
    });
  });
}
