import { readFile } from 'node:fs/promises';
import type { BatchLine, CreateBatchRequest, Genmedia } from '@genmedia/client';
import { MAX_INLINE_BATCH_ITEMS } from '../../shared/batches';
import { CliError } from '../context';

/** Files up to this size go inline in the request; larger ones through an upload (the request body allows 8 MB). */
const MAX_INLINE_BYTES = 1024 * 1024;

/** How a JSONL file reaches the API: its lines inline, or the bytes to upload first. */
export type BatchSource = { kind: 'inline'; items: BatchLine[] } | { kind: 'upload'; bytes: Buffer };

/**
 * Inline when the file is small, every line is JSON and none is blank, so the API's line numbers are the file's;
 * otherwise the file is uploaded as it is and the API reads and numbers its lines itself.
 */
export function batchSourceOf(bytes: Buffer): BatchSource {
  const text = bytes.toString('utf8');
  const lines = text.replace(/\r?\n$/, '').split(/\r?\n/);
  if (bytes.length > MAX_INLINE_BYTES || lines.length > MAX_INLINE_BATCH_ITEMS) return { kind: 'upload', bytes };
  const items: BatchLine[] = [];
  for (const line of lines) {
    if (line.trim() === '') return { kind: 'upload', bytes };
    try {
      items.push(JSON.parse(line) as BatchLine);
    } catch {
      return { kind: 'upload', bytes };
    }
  }
  return { kind: 'inline', items };
}

export async function readBatchFile(file: string): Promise<BatchSource> {
  let bytes: Buffer;
  try {
    bytes = await readFile(file);
  } catch (err) {
    throw new CliError('INVALID_ARGUMENTS', `cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
  }
  if (bytes.toString('utf8').trim() === '') throw new CliError('INVALID_ARGUMENTS', `${file} holds no lines`);
  return batchSourceOf(bytes);
}

/** The request's source part: the lines, or the fileId of the file uploaded as `application/jsonl`. */
export async function sourceRequest(client: Genmedia, source: BatchSource, filename: string): Promise<Pick<CreateBatchRequest, 'items' | 'fileId'>> {
  if (source.kind === 'inline') return { items: source.items };
  const uploaded = await client.upload(new Uint8Array(source.bytes), { filename, contentType: 'application/jsonl' });
  return { fileId: uploaded.fileId };
}
