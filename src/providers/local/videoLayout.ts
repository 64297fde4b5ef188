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

/** Positions of `count` cards of `cardWidth`×`cardHeight` in centred rows along the bottom of the frame. */
export function layoutCards(frame: Dimensions, cardWidth: number, cardHeight: number, count: number): Placement[] {
  const gap = Math.round(Math.min(frame.width, frame.height) * 0.03);
  const perRow = Math.max(1, Math.floor((frame.width - gap) / (cardWidth + gap)));
  const rows = Math.ceil(count / perRow);
  const placements: Placement[] = [];
  for (let i = 0; i < count; i += 1) {
    const row = Math.floor(i / perRow);
    const inRow = Math.min(perRow, count - row * perRow);
    const rowWidth = inRow * cardWidth + (inRow - 1) * gap;
    const col = i % perRow;
    placements.push({
      x: Math.round((frame.width - rowWidth) / 2 + col * (cardWidth + gap)),
      y: Math.round(frame.height - gap - (rows - row) * (cardHeight + gap) + gap),
    });
  }
  return placements;
}
