import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Job } from '@genmedia/client';
import { extensionFor } from '../../lib/mediaTypes';

/** Saves every output of a finished job as `<dir>/<jobId>-<n>.<ext>`; returns the paths written. */
export async function downloadOutputs(job: Job, dir: string): Promise<string[]> {
  await mkdir(dir, { recursive: true });
  const written: string[] = [];
  for (const [index, output] of job.outputs.entries()) {
    const response = await fetch(output.url);
    if (!response.ok) throw new Error(`could not download output ${index + 1} of ${job.jobId}: HTTP ${response.status}`);
    const file = path.join(dir, `${job.jobId}-${index + 1}.${extensionFor(output.contentType)}`);
    await writeFile(file, Buffer.from(await response.arrayBuffer()));
    written.push(file);
  }
  return written;
}
