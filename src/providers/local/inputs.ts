import { ProviderError } from '../types';

/** Reading the fields the local provider uses from an already validated input, with the spec's defaults. */

function rejected(message: string): ProviderError {
  return new ProviderError('PROVIDER_REJECTED_INPUT', message, { retryable: false });
}

export interface Dimensions {
  width: number;
  height: number;
}

/** Size labels accepted by text-to-image, besides any `<width>x<height>`. */
export const IMAGE_SIZE_LABELS: Readonly<Record<string, Dimensions>> = {
  auto: { width: 1024, height: 1024 },
  square: { width: 1024, height: 1024 },
  square_hd: { width: 1024, height: 1024 },
  landscape: { width: 1536, height: 1024 },
  portrait: { width: 1024, height: 1536 },
  landscape_4_3: { width: 1024, height: 768 },
  landscape_16_9: { width: 1024, height: 576 },
  portrait_4_3: { width: 768, height: 1024 },
  portrait_16_9: { width: 576, height: 1024 },
  '1:1': { width: 1024, height: 1024 },
  '4:3': { width: 1024, height: 768 },
  '3:4': { width: 768, height: 1024 },
  '16:9': { width: 1024, height: 576 },
  '9:16': { width: 576, height: 1024 },
  '3:2': { width: 1536, height: 1024 },
  '2:3': { width: 1024, height: 1536 },
};
export const DEFAULT_IMAGE_SIZE = '1024x1024';
export const MIN_IMAGE_SIDE = 64;
export const MAX_IMAGE_SIDE = 4096;

export function parseImageSize(value: unknown): Dimensions {
  const label = value === undefined || value === null || value === '' ? DEFAULT_IMAGE_SIZE : String(value).trim().toLowerCase();
  const known = IMAGE_SIZE_LABELS[label];
  if (known) return { ...known };
  const match = /^(\d{2,5})\s*[x×*]\s*(\d{2,5})$/.exec(label);
  if (!match) throw rejected(`size "${label}" is not a known label or <width>x<height>`);
  const width = Number(match[1]);
  const height = Number(match[2]);
  for (const side of [width, height]) {
    if (side < MIN_IMAGE_SIDE || side > MAX_IMAGE_SIDE) {
      throw rejected(`size "${label}": each side must be between ${MIN_IMAGE_SIDE} and ${MAX_IMAGE_SIDE} pixels`);
    }
  }
  return { width, height };
}

export function parseNumImages(value: unknown): number {
  const n = value === undefined || value === null || value === '' ? 1 : Number(value);
  if (!Number.isInteger(n) || n < 1 || n > 4) throw rejected(`num_images must be 1 to 4, got ${JSON.stringify(value)}`);
  return n;
}

export function parseDurationSeconds(value: unknown): number {
  const n = value === undefined || value === null || value === '' ? 5 : Number(value);
  if (!Number.isInteger(n) || n < 3 || n > 15) throw rejected(`duration must be 3 to 15 seconds, got ${JSON.stringify(value)}`);
  return n;
}

export type AspectRatio = '16:9' | '9:16' | '1:1';
export type VideoQuality = 'std' | 'pro';

export function parseAspectRatio(value: unknown): AspectRatio {
  const v = value === undefined || value === null || value === '' ? '16:9' : String(value);
  if (v !== '16:9' && v !== '9:16' && v !== '1:1') throw rejected(`aspect_ratio must be 16:9, 9:16 or 1:1, got "${v}"`);
  return v;
}

export function parseQuality(value: unknown): VideoQuality {
  const v = value === undefined || value === null || value === '' ? 'std' : String(value);
  if (v !== 'std' && v !== 'pro') throw rejected(`quality must be std or pro, got "${v}"`);
  return v;
}

export function readPrompt(input: Record<string, unknown>): string {
  const prompt = input.prompt;
  return typeof prompt === 'string' ? prompt : '';
}

/** `seed` may be a number or a numeric string; anything else is ignored. */
export function readSeed(input: Record<string, unknown>): string {
  const seed = input.seed;
  return typeof seed === 'number' || typeof seed === 'string' ? String(seed) : '';
}

export interface VideoElement {
  name: string;
  type: string;
  characterImages: string[];
}

export function readElements(input: Record<string, unknown>): VideoElement[] {
  const raw = input.elements;
  if (raw === undefined || raw === null) return [];
  if (!Array.isArray(raw)) throw rejected('elements must be an array');
  return raw.map((item, index) => {
    if (typeof item !== 'object' || item === null) throw rejected(`elements[${index}] must be an object`);
    const e = item as Record<string, unknown>;
    const images = Array.isArray(e.characterImages) ? e.characterImages.filter((u): u is string => typeof u === 'string') : [];
    return {
      name: typeof e.name === 'string' ? e.name : `Element ${index + 1}`,
      type: typeof e.type === 'string' ? e.type : '',
      characterImages: images,
    };
  });
}

export function readImageUrl(input: Record<string, unknown>): string | undefined {
  const url = input.image_url;
  return typeof url === 'string' && url !== '' ? url : undefined;
}
