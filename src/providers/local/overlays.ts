import sharp from 'sharp';
import { escapeXml, wrapText } from './proceduralArt';
import type { Dimensions } from './inputs';

const MAX_THUMBNAILS_PER_CARD = 3;

/**
 * A character card: up to three of the element's reference images side by side, its name below,
 * on a translucent rounded panel. Returns the card's size.
 */
export async function renderElementCard(
  target: string,
  name: string,
  imagePaths: readonly string[],
  cardHeight: number,
): Promise<Dimensions> {
  const pad = Math.max(4, Math.round(cardHeight * 0.06));
  const labelHeight = Math.round(cardHeight * 0.22);
  const thumb = cardHeight - labelHeight - pad * 2;
  const shown = imagePaths.slice(0, MAX_THUMBNAILS_PER_CARD);
  const slots = Math.max(1, shown.length);
  const width = pad + slots * (thumb + pad);
  const fontSize = Math.max(9, Math.round(labelHeight * 0.7));
  const label = wrapText(name, Math.max(4, Math.floor(width / (fontSize * 0.6))), 1)[0] ?? '';

  const panel =
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${cardHeight}">` +
    `<rect width="${width}" height="${cardHeight}" rx="${pad}" fill="rgba(0,0,0,0.6)"/>` +
    (shown.length === 0
      ? `<circle cx="${pad + thumb / 2}" cy="${pad + thumb / 2}" r="${thumb / 2}" fill="rgba(255,255,255,0.35)"/>` +
        `<text x="${pad + thumb / 2}" y="${pad + thumb * 0.68}" text-anchor="middle" font-family="DejaVu Sans, sans-serif" ` +
        `font-size="${Math.round(thumb * 0.5)}" fill="#ffffff">${escapeXml((name.trim()[0] ?? '?').toUpperCase())}</text>`
      : '') +
    `<text x="${width / 2}" y="${cardHeight - pad - labelHeight * 0.22}" text-anchor="middle" font-family="DejaVu Sans, sans-serif" ` +
    `font-size="${fontSize}" fill="#ffffff">${escapeXml(label)}</text></svg>`;

  const thumbnails = await Promise.all(
    shown.map(async (file, i) => ({
      input: await sharp(file, { animated: false }).rotate().resize(thumb, thumb, { fit: 'cover' }).png().toBuffer(),
      left: pad + i * (thumb + pad),
      top: pad,
    })),
  );
  await sharp(Buffer.from(panel)).composite(thumbnails).png().toFile(target);
  return { width, height: cardHeight };
}

/** A full-frame transparent PNG with the prompt in a band along the top. */
export async function renderCaptionOverlay(target: string, frame: Dimensions, caption: string): Promise<void> {
  const fontSize = Math.max(10, Math.round(Math.min(frame.width, frame.height) / 26));
  const maxChars = Math.max(8, Math.floor(frame.width / (fontSize * 0.6)) - 2);
  const lines = caption ? wrapText(caption, maxChars, 2) : [];
  const lineHeight = Math.round(fontSize * 1.3);
  const band = lines.length ? lines.length * lineHeight + fontSize * 0.6 : 0;
  const text = lines
    .map(
      (line, i) =>
        `<text x="${Math.round(fontSize * 0.6)}" y="${(fontSize * 0.3 + lineHeight * (i + 0.8)).toFixed(1)}" ` +
        `font-family="DejaVu Sans, sans-serif" font-size="${fontSize}" fill="#ffffff">${escapeXml(line)}</text>`,
    )
    .join('');
  const svg =
    `<svg xmlns="http://www.w3.org/2000/svg" width="${frame.width}" height="${frame.height}">` +
    (band ? `<rect width="${frame.width}" height="${band.toFixed(1)}" fill="rgba(0,0,0,0.45)"/>` : '') +
    `${text}</svg>`;
  await sharp(Buffer.from(svg)).png().toFile(target);
}
