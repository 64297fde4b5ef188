import { createHash } from 'node:crypto';
import type { Dimensions } from './inputs';

/**
 * Deterministic procedural artwork as SVG: a palette, sky, layered ridges and floating shapes,
 * all drawn from a PRNG seeded by a hash of the prompt, seed and image index, with the prompt
 * written across the bottom. Same key → same SVG → same PNG bytes.
 */

export function artKey(prompt: string, seed: string, index: number): string {
  return createHash('sha256').update(`${prompt}\u0000${seed}\u0000${index}`).digest('hex');
}

/** mulberry32 over the first 32 bits of the key. */
function prng(key: string): () => number {
  let state = parseInt(key.slice(0, 8), 16) >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Characters XML 1.0 does not allow at all, escaped or not: dropped from drawn text. */
// eslint-disable-next-line no-control-regex -- finding control characters is the point
const NOT_XML = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/** Text safe inside an SVG element: markup characters escaped, characters XML cannot hold removed. */
export function escapeXml(text: string): string {
  return text
    .replace(NOT_XML, '')
    .replace(/[<>&'"]/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', "'": '&apos;', '"': '&quot;' })[c] ?? c);
}

const hsl = (h: number, s: number, l: number, a = 1) =>
  `hsla(${Math.round(h) % 360},${Math.round(s)}%,${Math.round(l)}%,${a.toFixed(2)})`;

/** Greedy word wrap to at most `maxLines`, the last line ending with an ellipsis when cut. */
export function wrapText(text: string, maxChars: number, maxLines: number): string[] {
  const words = text.split(/\s+/).filter(Boolean);
  const lines: string[] = [];
  let current = '';
  for (const word of words) {
    const piece = word.length > maxChars ? `${word.slice(0, maxChars - 1)}…` : word;
    if (!current) current = piece;
    else if (current.length + 1 + piece.length <= maxChars) current += ` ${piece}`;
    else {
      lines.push(current);
      current = piece;
    }
  }
  if (current) lines.push(current);
  if (lines.length <= maxLines) return lines;
  const kept = lines.slice(0, maxLines);
  const last = kept[maxLines - 1];
  kept[maxLines - 1] = `${last.slice(0, Math.max(0, maxChars - 1))}…`;
  return kept;
}

export interface ArtOptions extends Dimensions {
  key: string;
  /** Text written on the image; empty for none. */
  caption: string;
  /** Small label in the corner, e.g. "2/4". */
  badge?: string;
}

export function buildArtSvg({ width, height, key, caption, badge }: ArtOptions): string {
  const rand = prng(key);
  const baseHue = rand() * 360;
  const accentHue = baseHue + 120 + rand() * 120;
  const parts: string[] = [];

  // The sky's gradient runs straight down, its middle stop drawn: cairo fills a vertical gradient a row at a time,
  // where a tilted one costs a computation per pixel (about half the render's CPU at 1024², for a barely visible tilt).
  const skyMiddle = 0.3 + rand() * 0.4;
  parts.push(
    `<defs><linearGradient id="sky" x1="0" y1="0" x2="0" y2="1">` +
      `<stop offset="0" stop-color="${hsl(baseHue, 70, 18)}"/>` +
      `<stop offset="${skyMiddle.toFixed(2)}" stop-color="${hsl(baseHue + 20, 75, 40)}"/>` +
      `<stop offset="1" stop-color="${hsl(baseHue + 40, 80, 62)}"/></linearGradient></defs>`,
    `<rect width="${width}" height="${height}" fill="url(#sky)"/>`,
  );

  const sunX = width * (0.15 + rand() * 0.7);
  const sunY = height * (0.15 + rand() * 0.3);
  const sunR = Math.min(width, height) * (0.08 + rand() * 0.1);
  parts.push(`<circle cx="${sunX.toFixed(1)}" cy="${sunY.toFixed(1)}" r="${sunR.toFixed(1)}" fill="${hsl(accentHue, 90, 70, 0.9)}"/>`);

  const shapeCount = 10 + Math.floor(rand() * 14);
  for (let i = 0; i < shapeCount; i += 1) {
    const x = rand() * width;
    const y = rand() * height * 0.7;
    const size = Math.min(width, height) * (0.02 + rand() * 0.09);
    const fill = hsl(accentHue + rand() * 90 - 45, 60 + rand() * 30, 50 + rand() * 30, 0.25 + rand() * 0.5);
    if (rand() < 0.5) {
      parts.push(`<circle cx="${x.toFixed(1)}" cy="${y.toFixed(1)}" r="${size.toFixed(1)}" fill="${fill}"/>`);
    } else {
      const angle = (rand() * 90).toFixed(1);
      parts.push(
        `<rect x="${(x - size / 2).toFixed(1)}" y="${(y - size / 2).toFixed(1)}" width="${size.toFixed(1)}" height="${size.toFixed(1)}" ` +
          `fill="${fill}" transform="rotate(${angle} ${x.toFixed(1)} ${y.toFixed(1)})"/>`,
      );
    }
  }

  const ridges = 3 + Math.floor(rand() * 3);
  for (let r = 0; r < ridges; r += 1) {
    const baseY = height * (0.5 + (r / ridges) * 0.35);
    const amplitude = height * (0.04 + rand() * 0.08);
    const frequency = 1 + rand() * 3;
    const phase = rand() * Math.PI * 2;
    const steps = 48;
    let d = `M0 ${height} L0 ${baseY.toFixed(1)}`;
    for (let s = 1; s <= steps; s += 1) {
      const x = (width * s) / steps;
      const y = baseY - amplitude * Math.sin((s / steps) * Math.PI * 2 * frequency + phase) - amplitude * 0.4 * Math.sin(s * 1.7 + phase);
      d += ` L${x.toFixed(1)} ${y.toFixed(1)}`;
    }
    d += ` L${width} ${height} Z`;
    parts.push(`<path d="${d}" fill="${hsl(baseHue + 180 + r * 12, 35, 12 + r * 9, 0.92)}"/>`);
  }

  if (caption) {
    const fontSize = Math.max(12, Math.round(Math.min(width, height) / 22));
    const maxChars = Math.max(8, Math.floor(width / (fontSize * 0.58)) - 2);
    const lines = wrapText(caption, maxChars, 3);
    const lineHeight = Math.round(fontSize * 1.3);
    const bandHeight = lines.length * lineHeight + fontSize;
    const bandY = height - bandHeight;
    parts.push(`<rect x="0" y="${bandY}" width="${width}" height="${bandHeight}" fill="rgba(0,0,0,0.55)"/>`);
    lines.forEach((line, i) => {
      const y = bandY + fontSize * 0.5 + lineHeight * (i + 0.8);
      parts.push(
        `<text x="${Math.round(fontSize * 0.6)}" y="${y.toFixed(1)}" font-family="DejaVu Sans, Arial, sans-serif" ` +
          `font-size="${fontSize}" fill="#ffffff">${escapeXml(line)}</text>`,
      );
    });
  }

  if (badge) {
    const fontSize = Math.max(10, Math.round(Math.min(width, height) / 36));
    parts.push(
      `<text x="${width - fontSize * 0.6}" y="${fontSize * 1.4}" text-anchor="end" font-family="DejaVu Sans Mono, monospace" ` +
        `font-size="${fontSize}" fill="rgba(255,255,255,0.85)">${escapeXml(badge)}</text>`,
    );
  }

  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}">${parts.join('')}</svg>`;
}
