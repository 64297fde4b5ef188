import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { renderImageEdit } from '../../../src/providers/local/imageEdit';
import type { InputFileReader } from '../../../src/providers/types';

const SIDE = 64;
const RED = { r: 255, g: 0, b: 0 };

let workDir: string;
beforeEach(() => {
  workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'image-edit-'));
});
afterEach(() => fs.rmSync(workDir, { recursive: true, force: true }));

/** A reader of two fixed files, as the worker's reader of uploads hands them over. */
function readerOf(files: Record<string, Buffer>): InputFileReader {
  return (url) => ({ url, own: true, read: async () => ({ data: files[url]!, contentType: 'image/png', filename: 'file.png' }) });
}

const redImage = () => sharp({ create: { width: SIDE, height: SIDE, channels: 3, background: RED } }).png().toBuffer();

/** Opaque on the left half (kept), transparent on the right (repainted). */
async function leftHalfMask(): Promise<Buffer> {
  const pixels = Buffer.alloc(SIDE * SIDE * 4);
  for (let y = 0; y < SIDE; y += 1) for (let x = 0; x < SIDE / 2; x += 1) pixels.writeUInt32BE(0x000000ff, (y * SIDE + x) * 4);
  return sharp(pixels, { raw: { width: SIDE, height: SIDE, channels: 4 } }).png().toBuffer();
}

async function pixelsOf(file: string): Promise<Buffer> {
  return sharp(file).removeAlpha().raw().toBuffer();
}

function isRed(pixels: Buffer, x: number, y: number): boolean {
  const at = (y * SIDE + x) * 3;
  return pixels[at] === 255 && pixels[at + 1] === 0 && pixels[at + 2] === 0;
}

function job(input: Record<string, unknown>, files: Record<string, Buffer>) {
  return { prompt: 'a lighthouse', input: { prompt: 'a lighthouse', size: `${SIDE}x${SIDE}`, ...input }, workDir, signal: new AbortController().signal, onFraction: () => {}, readInput: readerOf(files) };
}

describe('renderImageEdit', () => {
  it('keeps the image where the mask is opaque and paints the prompt where it is transparent', async () => {
    const files = { 'https://files.test/image': await redImage(), 'https://files.test/mask': await leftHalfMask() };
    const [out] = await renderImageEdit(job({ image_url: 'https://files.test/image', mask_url: 'https://files.test/mask' }, files));
    expect(out).toMatchObject({ contentType: 'image/png' });
    const pixels = await pixelsOf(out!.path);
    for (let y = 0; y < SIDE; y += 8) for (let x = 0; x < SIDE / 2; x += 8) expect(isRed(pixels, x, y), `kept pixel ${x},${y}`).toBe(true);
    let repainted = 0;
    for (let y = 0; y < SIDE; y += 1) for (let x = SIDE / 2; x < SIDE; x += 1) if (!isRed(pixels, x, y)) repainted += 1;
    expect(repainted).toBeGreaterThan((SIDE * SIDE) / 4);
  });

  it('without a mask lays the art over the whole image half-transparently, one file per requested image', async () => {
    const files = { 'https://files.test/image': await redImage() };
    const rendered = await renderImageEdit(job({ image_url: 'https://files.test/image', num_images: '2' }, files));
    expect(rendered).toHaveLength(2);
    const pixels = await pixelsOf(rendered[0]!.path);
    let changed = 0;
    for (let i = 0; i < pixels.length; i += 3) {
      expect(pixels[i]).toBeGreaterThanOrEqual(127);
      if (!isRed(pixels, (i / 3) % SIDE, Math.floor(i / 3 / SIDE))) changed += 1;
    }
    expect(changed).toBeGreaterThan((SIDE * SIDE) / 2);
  });
});
