import path from 'node:path';
import sharp from 'sharp';
import { throwIfAborted } from '../abort';
import type { InputFileReader } from '../types';
import { fetchInputImage } from './inputFiles';
import { parseImageSize, parseNumImages, readImageUrl, readSeed, type Dimensions } from './inputs';
import { artKey, buildArtSvg } from './proceduralArt';
import type { RenderedFile, TextToImageJob } from './textToImage';

export interface ImageEditJob extends TextToImageJob {
  readInput: InputFileReader;
}

/** How much of the input image shows through the prompt's art where no mask keeps it. */
const UNMASKED_ART_OPACITY = 0.5;

function readMaskUrl(input: Record<string, unknown>): string | undefined {
  const url = input.mask_url;
  return typeof url === 'string' && url !== '' ? url : undefined;
}

async function artPng(size: Dimensions, key: string, caption: string, badge: string | undefined): Promise<Buffer> {
  const svg = buildArtSvg({ ...size, key, caption, badge });
  return sharp(Buffer.from(svg), { density: 72 }).resize(size.width, size.height, { fit: 'fill' }).removeAlpha().png().toBuffer();
}

/**
 * The input image with the prompt's art painted in. With a mask, as OpenAI's edits read one: where the mask is
 * transparent the art replaces the image, where it is opaque the image is kept. Without a mask, the art covers the
 * whole image half-transparently, so the image still shows through.
 */
export async function renderImageEdit(job: ImageEditJob): Promise<RenderedFile[]> {
  const size = parseImageSize(job.input.size);
  const count = parseNumImages(job.input.num_images);
  const seed = readSeed(job.input);
  const imagePath = await fetchInputImage(readImageUrl(job.input)!, job.workDir, 'edit-image', job.signal, job.readInput);
  const maskUrl = readMaskUrl(job.input);
  const maskPath = maskUrl === undefined ? undefined : await fetchInputImage(maskUrl, job.workDir, 'edit-mask', job.signal, job.readInput);
  const { width, height } = size;
  const image = await sharp(imagePath, { animated: false }).resize(width, height, { fit: 'fill' }).removeAlpha().raw().toBuffer();
  // The kept part of the image: its pixels with the mask's alpha (a mask without alpha keeps everything).
  const kept = maskPath
    ? await sharp(image, { raw: { width, height, channels: 3 } })
        .joinChannel(await sharp(maskPath, { animated: false }).resize(width, height, { fit: 'fill' }).ensureAlpha().extractChannel('alpha').raw().toBuffer(), {
          raw: { width, height, channels: 1 },
        })
        .png()
        .toBuffer()
    : undefined;

  const files: RenderedFile[] = [];
  for (let index = 0; index < count; index += 1) {
    throwIfAborted(job.signal);
    const target = path.join(job.workDir, `image-${index + 1}.png`);
    const art = await artPng(size, artKey(job.prompt, seed, index), job.prompt, count > 1 ? `${index + 1}/${count}` : undefined);
    if (kept) {
      await sharp(art).composite([{ input: kept }]).png({ compressionLevel: 6 }).toFile(target);
    } else {
      const veil = await sharp(art).ensureAlpha(UNMASKED_ART_OPACITY).png().toBuffer();
      await sharp(image, { raw: { width, height, channels: 3 } }).composite([{ input: veil }]).png({ compressionLevel: 6 }).toFile(target);
    }
    files.push({ path: target, contentType: 'image/png' });
    job.onFraction((index + 1) / count);
  }
  return files;
}
