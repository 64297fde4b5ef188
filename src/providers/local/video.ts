import path from 'node:path';
import sharp from 'sharp';
import { throwIfAborted } from '../abort';
import { runFfmpeg } from '../media/ffmpeg';
import { artKey } from './proceduralArt';
import type { InputFileReader } from '../types';
import { fetchInputImage } from './inputFiles';
import { parseAspectRatio, parseDurationSeconds, parseQuality, readElements, readImageUrl, readSeed } from './inputs';
import { renderCaptionOverlay, renderElementCard } from './overlays';
import { renderArtPng, type RenderedFile } from './textToImage';
import { layoutCards, videoProfile, type VideoProfile } from './videoLayout';

/** Elements beyond this many are accepted but not drawn, to keep the filter graph small. */
export const MAX_DRAWN_ELEMENTS = 6;
const MAX_IMAGES_PER_ELEMENT = 3;
/** The scene is prepared larger than the frame so the slow zoom stays sharp. */
const SCENE_OVERSCAN = 1.5;
const ZOOM_END = 1.2;
const PREPARE_SHARE = 0.15;

export interface VideoJob {
  /** Prompt with failure tokens already removed. */
  prompt: string;
  input: Record<string, unknown>;
  workDir: string;
  signal: AbortSignal;
  onFraction(fraction: number): void;
  readInput: InputFileReader;
}

/**
 * An H.264 MP4 of exactly `duration` seconds: the scene (fetched from `image_url`, or drawn from
 * the prompt when there is none) under a slow zoom and pan, the prompt along the top, and one card
 * per element (reference images and name) sliding in one after another.
 */
export async function renderVideo(job: VideoJob): Promise<RenderedFile[]> {
  const durationSeconds = parseDurationSeconds(job.input.duration);
  const profile = videoProfile(parseAspectRatio(job.input.aspect_ratio), parseQuality(job.input.quality));
  const elements = readElements(job.input).slice(0, MAX_DRAWN_ELEMENTS);
  const key = artKey(job.prompt, readSeed(job.input), 0);

  const scenePath = await prepareScene(job, profile, key);
  job.onFraction(PREPARE_SHARE / 3);

  const cardHeight = Math.round(Math.min(profile.width, profile.height) * 0.26);
  const cards: Array<{ path: string; width: number; height: number }> = [];
  for (const [index, element] of elements.entries()) {
    const images: string[] = [];
    for (const [imageIndex, url] of element.characterImages.slice(0, MAX_IMAGES_PER_ELEMENT).entries()) {
      images.push(await fetchInputImage(url, job.workDir, `element-${index}-${imageIndex}`, job.signal, job.readInput));
    }
    const cardPath = path.join(job.workDir, `card-${index}.png`);
    const size = await renderElementCard(cardPath, element.name, images, cardHeight);
    cards.push({ path: cardPath, ...size });
  }
  const captionPath = path.join(job.workDir, 'caption.png');
  await renderCaptionOverlay(captionPath, profile, job.prompt);
  job.onFraction(PREPARE_SHARE);
  throwIfAborted(job.signal);

  const output = path.join(job.workDir, 'video.mp4');
  const totalFrames = durationSeconds * profile.fps;
  const panLeftToRight = parseInt(key.slice(8, 10), 16) % 2 === 0;
  await runFfmpeg(ffmpegArgs({ scenePath, captionPath, cards, profile, totalFrames, durationSeconds, panLeftToRight, output }), {
    signal: job.signal,
    totalFrames,
    onFraction: (f) => job.onFraction(PREPARE_SHARE + (1 - PREPARE_SHARE) * f),
  });
  job.onFraction(1);
  return [{ path: output, contentType: 'video/mp4' }];
}

async function prepareScene(job: VideoJob, profile: VideoProfile, key: string): Promise<string> {
  const width = Math.round(profile.width * SCENE_OVERSCAN);
  const height = Math.round(profile.height * SCENE_OVERSCAN);
  const scenePath = path.join(job.workDir, 'scene.png');
  const imageUrl = readImageUrl(job.input);
  if (!imageUrl) {
    await renderArtPng(scenePath, { width, height }, key, '');
    return scenePath;
  }
  const source = await fetchInputImage(imageUrl, job.workDir, 'scene-input', job.signal, job.readInput);
  await sharp(source, { animated: false }).rotate().resize(width, height, { fit: 'cover' }).removeAlpha().png().toFile(scenePath);
  return scenePath;
}

interface FfmpegPlan {
  scenePath: string;
  captionPath: string;
  cards: ReadonlyArray<{ path: string; width: number; height: number }>;
  profile: VideoProfile;
  totalFrames: number;
  durationSeconds: number;
  panLeftToRight: boolean;
  output: string;
}

function ffmpegArgs(plan: FfmpegPlan): string[] {
  const { profile, totalFrames } = plan;
  const loop = (file: string) => ['-loop', '1', '-framerate', String(profile.fps), '-i', file];
  const inputs = [...loop(plan.scenePath), ...loop(plan.captionPath), ...plan.cards.flatMap((c) => loop(c.path))];

  const last = Math.max(1, totalFrames - 1);
  const progress = plan.panLeftToRight ? `(on/${last})` : `(1-on/${last})`;
  const filters = [
    `[0:v]zoompan=z='1+${(ZOOM_END - 1).toFixed(2)}*on/${last}':x='(iw-iw/zoom)*${progress}':y='(ih-ih/zoom)/2'` +
      `:d=1:s=${profile.width}x${profile.height}:fps=${profile.fps},setsar=1[bg]`,
    `[bg][1:v]overlay=0:0[v0]`,
  ];
  const placements = layoutCards(profile, plan.cards);
  const stagger = Math.min(0.8, (plan.durationSeconds * 0.5) / Math.max(1, plan.cards.length));
  plan.cards.forEach((card, i) => {
    const appear = (0.3 + i * stagger).toFixed(2);
    const slide = `${placements[i].y}+max(0\\,1-(t-${appear})/0.5)*${card.height}`;
    filters.push(
      `[v${i}][${i + 2}:v]overlay=x=${placements[i].x}:y='${slide}':enable='gte(t,${appear})':eval=frame[v${i + 1}]`,
    );
  });
  filters.push(`[v${plan.cards.length}]format=yuv420p[out]`);

  return [
    '-y',
    ...inputs,
    '-filter_complex',
    filters.join(';'),
    '-map',
    '[out]',
    '-frames:v',
    String(totalFrames),
    '-r',
    String(profile.fps),
    '-c:v',
    'libx264',
    '-preset',
    'veryfast',
    '-profile:v',
    'high',
    '-crf',
    String(profile.crf),
    '-maxrate',
    profile.maxBitrate,
    '-bufsize',
    profile.bufferSize,
    '-pix_fmt',
    'yuv420p',
    '-movflags',
    '+faststart',
    '-an',
    plan.output,
  ];
}
