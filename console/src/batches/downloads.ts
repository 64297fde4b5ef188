import type { Genmedia } from '@genmedia/client';

/**
 * Saves what the API streams as a file the browser downloads. The API wants the key in a header, which a plain link
 * cannot send, so the body is read into a Blob first: a very large archive is better fetched with `genmedia batch download`.
 */
async function save(body: ReadableStream<Uint8Array> | Blob, filename: string, type: string): Promise<void> {
  const blob = body instanceof Blob ? body : await new Response(body, { headers: { 'content-type': type } }).blob();
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = filename;
  document.body.append(link);
  link.click();
  link.remove();
  // The download has its own reference to the Blob once it started.
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

export async function saveResults(client: Genmedia, batchId: string): Promise<void> {
  const lines: string[] = [];
  for await (const result of client.batchResults(batchId)) lines.push(JSON.stringify(result));
  await save(new Blob([lines.map((l) => `${l}\n`).join('')], { type: 'application/jsonl' }), `${batchId}-results.jsonl`, 'application/jsonl');
}

export async function saveArchive(client: Genmedia, batchId: string): Promise<void> {
  await save(await client.batchArchive(batchId), `${batchId}.zip`, 'application/zip');
}
