import type { AspectRatio, Dimensions, VideoQuality } from './inputs';

/** Output geometry and encoder settings per aspect ratio and quality. Kept small so renders stay cheap. */
export interface VideoProfile extends Dimensions {
  fps: number;
  crf: number;
  maxBitrate: string;
  bufferSize: string;
}

const SIZES: Record<VideoQuality, Record<AspectRatio, Dimensions>> = {
  std: { '16:9': { width: 640, height: 360 }, '9:16': { width: 360, height: 640 }, '1:1': { width: 480, height: 480 } },
  pro: { '16:9': { width: 1280, height: 720 }, '9:16': { width: 720, height: 1280 }, '1:1': { width: 960, height: 960 } },
};

export function videoProfile(aspectRatio: AspectRatio, quality: VideoQuality): VideoProfile {
  const size = SIZES[quality][aspectRatio];
  return quality === 'pro'
    ? { ...size, fps: 12, crf: 20, maxBitrate: '4M', bufferSize: '8M' }
    : { ...size, fps: 12, crf: 27, maxBitrate: '1M', bufferSize: '2M' };
}

export interface Placement {
  x: number;
  y: number;
}

/** Positions of cards (of the given sizes, equal heights) in centred rows along the bottom of the frame. */
export function layoutCards(frame: Dimensions, cards: readonly Dimensions[]): Placement[] {
  const gap = Math.round(Math.min(frame.width, frame.height) * 0.03);
  const rows: number[][] = [];
  let rowWidth = 0;
  cards.forEach((card, i) => {
    const current = rows[rows.length - 1];
    if (current && rowWidth + gap + card.width <= frame.width - 2 * gap) {
      current.push(i);
      rowWidth += gap + card.width;
    } else {
      rows.push([i]);
      rowWidth = card.width;
    }
  });
  const cardHeight = cards[0]?.height ?? 0;
  const placements: Placement[] = [];
  rows.forEach((row, r) => {
    const width = row.reduce((sum, i) => sum + cards[i].width, 0) + gap * (row.length - 1);
    let x = Math.round((frame.width - width) / 2);
    const y = frame.height - (rows.length - r) * (cardHeight + gap);
    for (const i of row) {
      placements[i] = { x, y };
      x += cards[i].width + gap;
    }
  });
  return placements;
}
