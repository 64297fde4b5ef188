import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkMediaStructure, MEDIA_STRUCTURE_LIMITS } from '../../../src/provenance/mediaStructure';

let dir: string;
const real: Record<string, string> = {};

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'genmedia-structure-'));
  const made: [string, string[]][] = [
    ['a.mp4', ['-c:v', 'libx264']],
    ['fragmented.mp4', ['-c:v', 'libx264', '-movflags', 'frag_keyframe+empty_moov', '-g', '1']],
    ['a.webm', ['-c:v', 'libvpx-vp9']],
  ];
  for (const [name, codec] of made) {
    real[name] = path.join(dir, name);
    execFileSync('ffmpeg', ['-y', '-loglevel', 'error', '-f', 'lavfi', '-i', 'testsrc2=size=64x48:rate=10', '-t', '3', ...codec, '-pix_fmt', 'yuv420p', real[name]]);
  }
});

afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const FTYP = Buffer.from('000000186674797069736f6d0000020069736f6d69736f32', 'hex');

function box(type: string, payload: Buffer = Buffer.alloc(0)): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(8 + payload.length, 0);
  head.write(type, 4, 'latin1');
  return Buffer.concat([head, payload]);
}

function write(name: string, bytes: Buffer): string {
  const file = path.join(dir, name);
  fs.writeFileSync(file, bytes);
  return file;
}

describe('checkMediaStructure', () => {
  it('passes real MP4s (progressive and fragmented) and a real WebM', async () => {
    expect(await checkMediaStructure(real['a.mp4'], 'video/mp4')).toBeNull();
    expect(await checkMediaStructure(real['fragmented.mp4'], 'video/mp4')).toBeNull();
    expect(await checkMediaStructure(real['a.webm'], 'video/webm')).toBeNull();
  });

  it('refuses an MP4 of more top-level boxes than a real one has, after reading only headers', async () => {
    const free = box('free');
    const crafted = write('crafted.mp4', Buffer.concat([FTYP, ...Array.from({ length: 100_000 }, () => free)]));
    const started = performance.now();
    expect(await checkMediaStructure(crafted, 'video/mp4')).toEqual({ limit: 'topLevel', max: MEDIA_STRUCTURE_LIMITS.topLevel });
    expect(performance.now() - started).toBeLessThan(2_000);
    const justUnder = write('under.mp4', Buffer.concat([FTYP, ...Array.from({ length: MEDIA_STRUCTURE_LIMITS.topLevel - 1 }, () => free)]));
    expect(await checkMediaStructure(justUnder, 'video/mp4')).toBeNull();
  });

  it('refuses boxes nested deeper than a real MP4 nests them, and too many boxes inside containers', async () => {
    let nested = box('free');
    for (let i = 0; i < 40; i++) nested = box('moov', nested);
    expect(await checkMediaStructure(write('deep.mp4', Buffer.concat([FTYP, nested])), 'video/mp4')).toEqual({ limit: 'depth', max: MEDIA_STRUCTURE_LIMITS.depth });
    const wide = box('moov', Buffer.concat(Array.from({ length: MEDIA_STRUCTURE_LIMITS.total + 1 }, () => box('free'))));
    expect(await checkMediaStructure(write('wide.mp4', Buffer.concat([FTYP, wide])), 'video/mp4')).toEqual({ limit: 'total', max: MEDIA_STRUCTURE_LIMITS.total });
  });

  it('refuses a WebM whose Segment holds more elements than a real one', async () => {
    // EBML header (empty), then a Segment of unknown size holding many empty Void elements (0xEC, size 0).
    const header = Buffer.from('1a45dfa380', 'hex');
    const segment = Buffer.concat([Buffer.from('18538067' + '01ffffffffffffff', 'hex'), Buffer.alloc(2 * 20_000, Buffer.from('ec80', 'hex'))]);
    expect(await checkMediaStructure(write('crafted.webm', Buffer.concat([header, segment])), 'video/webm')).toEqual({ limit: 'topLevel', max: MEDIA_STRUCTURE_LIMITS.topLevel });
  });

  it('leaves a damaged or truncated file, and other types, to the library', async () => {
    const truncated = fs.readFileSync(real['a.mp4']).subarray(0, 300);
    expect(await checkMediaStructure(write('truncated.mp4', truncated), 'video/mp4')).toBeNull();
    expect(await checkMediaStructure(write('a.png', Buffer.from('89504e470d0a1a0a', 'hex')), 'image/png')).toBeNull();
  });
});
