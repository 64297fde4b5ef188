/** Small real media files the fake upstreams serve as generation outputs. */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import sharp from 'sharp';

let png: Promise<Buffer> | undefined;
let mp4: Promise<Buffer> | undefined;

/** A 64×48 PNG. */
export function samplePng(): Promise<Buffer> {
  png ??= sharp({ create: { width: 64, height: 48, channels: 3, background: { r: 40, g: 120, b: 200 } } })
    .png()
    .toBuffer();
  return png;
}

/** A one-second 64×48 H.264 MP4, made with ffmpeg. */
export function sampleMp4(): Promise<Buffer> {
  mp4 ??= (async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'genmedia-sample-'));
    try {
      const file = path.join(dir, 'sample.mp4');
      await promisify(execFile)('ffmpeg', [
        '-hide_banner', '-loglevel', 'error', '-f', 'lavfi', '-i', 'testsrc=size=64x48:rate=10:duration=1',
        '-pix_fmt', 'yuv420p', '-c:v', 'libx264', '-movflags', '+faststart', '-y', file,
      ]);
      return await readFile(file);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  })();
  return mp4;
}

/** The scenario tokens of test/support/upstreams/types.ts found in a prompt. */
export function scenarioOf(prompt: unknown): Set<string> {
  const found = new Set<string>();
  if (typeof prompt !== 'string') return found;
  for (const match of prompt.matchAll(/\[upstream:([a-z-]+)\]/g)) found.add(match[1]);
  return found;
}
