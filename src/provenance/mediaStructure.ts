/**
 * The shape of a received MP4 or WebM, checked before the C2PA library parses it: the library's time grows with the
 * square of an MP4's top-level boxes (100,000 empty boxes, 800 KB, cost half a minute of CPU), so a file with more
 * boxes, or nested deeper, than any real MP4 or WebM has is refused here, after reading only its box headers.
 */
import { open, type FileHandle } from 'node:fs/promises';

/** Far above real files: a progressive MP4 has about five top-level boxes, a fragmented one two per fragment. */
export const MEDIA_STRUCTURE_LIMITS = {
  /** Boxes (MP4) or elements (WebM) at the top level, and at the level of a WebM's Segment. */
  topLevel: 10_000,
  /** Boxes or elements at every level together. */
  total: 50_000,
  /** Nesting: a real MP4's deepest box (moov/trak/mdia/minf/stbl/stsd/avc1/avcC) is eight levels down. */
  depth: 16,
} as const;

export type MediaStructureLimits = { [K in keyof typeof MEDIA_STRUCTURE_LIMITS]: number };

/** Why a file was refused: which limit it passes, and the count (or depth) reached. */
export interface StructureRefusal {
  limit: keyof MediaStructureLimits;
  max: number;
}

/** Reads a file in blocks, so that walking many small headers costs few reads. */
class BlockReader {
  private block = Buffer.alloc(0);
  private blockStart = 0;
  private static readonly SIZE = 64 * 1024;

  constructor(
    private readonly handle: FileHandle,
    readonly size: number,
  ) {}

  /** `length` bytes at `offset`, or fewer at the end of the file. */
  async bytes(offset: number, length: number): Promise<Buffer> {
    if (offset < this.blockStart || offset + length > this.blockStart + this.block.length) {
      const buffer = Buffer.alloc(Math.max(BlockReader.SIZE, length));
      const { bytesRead } = await this.handle.read(buffer, 0, buffer.length, offset);
      this.block = buffer.subarray(0, bytesRead);
      this.blockStart = offset;
    }
    return this.block.subarray(offset - this.blockStart, offset - this.blockStart + length);
  }
}

/** ISO BMFF boxes whose payload is boxes (`meta` after a four-byte version and flags). */
const MP4_CONTAINERS = new Set(['moov', 'trak', 'mdia', 'minf', 'stbl', 'edts', 'dinf', 'udta', 'mvex', 'moof', 'traf', 'mfra', 'tref', 'sinf', 'schi', 'ipro', 'meta']);

class Counter {
  total = 0;
  constructor(private readonly limits: MediaStructureLimits) {}

  /** A refusal once a level holds too many, all levels together too many, or a level is too deep. */
  count(levelCount: number, depth: number, topLevel: boolean): StructureRefusal | null {
    this.total += 1;
    if (depth > this.limits.depth) return { limit: 'depth', max: this.limits.depth };
    if (topLevel && levelCount > this.limits.topLevel) return { limit: 'topLevel', max: this.limits.topLevel };
    if (this.total > this.limits.total) return { limit: 'total', max: this.limits.total };
    return null;
  }
}

async function walkMp4(reader: BlockReader, start: number, end: number, depth: number, counter: Counter): Promise<StructureRefusal | null> {
  let offset = start;
  let count = 0;
  while (offset + 8 <= end) {
    const head = await reader.bytes(offset, 16);
    if (head.length < 8) return null;
    let size = head.readUInt32BE(0);
    const type = head.toString('latin1', 4, 8);
    let headerBytes = 8;
    if (size === 1) {
      if (head.length < 16) return null;
      size = Number(head.readBigUInt64BE(8));
      headerBytes = 16;
    } else if (size === 0) {
      size = end - offset;
    }
    // A box that does not fit is the library's to judge (a damaged file is reported invalid, not refused).
    if (size < headerBytes || offset + size > end) return null;
    count += 1;
    const refusal = counter.count(count, depth, depth === 1);
    if (refusal) return refusal;
    if (MP4_CONTAINERS.has(type)) {
      const payload = offset + headerBytes + (type === 'meta' ? 4 : 0);
      const inner = await walkMp4(reader, payload, offset + size, depth + 1, counter);
      if (inner) return inner;
    }
    offset += size;
  }
  return null;
}

/** An EBML variable-length integer at `at`: its length in bytes and value (null: the reserved "unknown" value). */
function vint(bytes: Buffer, at: number, keepMarker: boolean): { length: number; value: number | null } | undefined {
  const first = bytes[at];
  if (first === undefined || first === 0) return undefined;
  const length = Math.clz32(first) - 23;
  if (at + length > bytes.length) return undefined;
  let value = keepMarker ? first : first & (0xff >> length);
  let allOnes = value === (0xff >> length);
  for (let i = 1; i < length; i++) {
    value = value * 256 + bytes[at + i];
    if (bytes[at + i] !== 0xff) allOnes = false;
  }
  return { length, value: !keepMarker && allOnes ? null : value };
}

/** Matroska master elements whose children matter here: the Segment, and a Cluster's blocks. */
const SEGMENT = 0x18538067;
const EBML_MASTERS = new Set([SEGMENT, 0x1f43b675 /* Cluster */, 0x1654ae6b /* Tracks */, 0xae /* TrackEntry */, 0x1c53bb6b /* Cues */, 0x1254c367 /* Tags */]);

async function walkEbml(reader: BlockReader, start: number, end: number, depth: number, counter: Counter): Promise<StructureRefusal | null> {
  let offset = start;
  let count = 0;
  while (offset < end) {
    const head = await reader.bytes(offset, 12);
    const id = vint(head, 0, true);
    const size = id && vint(head, id.length, false);
    if (!id || !size) return null;
    const headerBytes = id.length + size.length;
    // An element of unknown size (a live stream's Segment or Cluster) runs to the end of what holds it.
    const length = size.value === null ? end - offset - headerBytes : size.value;
    if (offset + headerBytes + length > end) return null;
    count += 1;
    // The Segment holds everything, so its children count as the top level too.
    const refusal = counter.count(count, depth, depth <= 2);
    if (refusal) return refusal;
    if (EBML_MASTERS.has(id.value!)) {
      const inner = await walkEbml(reader, offset + headerBytes, offset + headerBytes + length, depth + 1, counter);
      if (inner) return inner;
    }
    if (size.value === null) return null;
    offset += headerBytes + length;
  }
  return null;
}

/**
 * Walks the box (MP4) or element (WebM) headers of the file at `file`; a refusal when it passes a limit, null when
 * it does not or is of another type. Reads headers only, skipping every payload that is not itself boxes.
 */
export async function checkMediaStructure(
  file: string,
  mimeType: string,
  limits: MediaStructureLimits = MEDIA_STRUCTURE_LIMITS,
): Promise<StructureRefusal | null> {
  if (mimeType !== 'video/mp4' && mimeType !== 'video/webm') return null;
  const handle = await open(file, 'r');
  try {
    const reader = new BlockReader(handle, (await handle.stat()).size);
    const counter = new Counter(limits);
    return mimeType === 'video/mp4' ? await walkMp4(reader, 0, reader.size, 1, counter) : await walkEbml(reader, 0, reader.size, 1, counter);
  } finally {
    await handle.close();
  }
}
