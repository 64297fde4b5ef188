/** The JSON values of a JSONL body, one per line, parsed as the bytes arrive. */
export async function* jsonLines<T>(body: ReadableStream<Uint8Array> | null): AsyncGenerator<T> {
  if (!body) return;
  const decoder = new TextDecoder();
  let pending = '';
  for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) {
    pending += decoder.decode(chunk, { stream: true });
    let newline = pending.indexOf('\n');
    while (newline >= 0) {
      const line = pending.slice(0, newline).trim();
      pending = pending.slice(newline + 1);
      if (line) yield JSON.parse(line) as T;
      newline = pending.indexOf('\n');
    }
  }
  const rest = (pending + decoder.decode()).trim();
  if (rest) yield JSON.parse(rest) as T;
}
