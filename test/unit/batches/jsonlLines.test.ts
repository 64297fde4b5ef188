/** A line of a batch file that is not JSON is refused by its number and the fault's position, never its text. */
import { describe, expect, it } from 'vitest';
import { jsonlLines, type RawLine } from '../../../src/batches/validation';

async function read(text: string): Promise<RawLine[]> {
  const lines: RawLine[] = [];
  for await (const line of jsonlLines((async function* () { yield text; })(), { maxBytes: 1 << 20, maxLineBytes: 1 << 20 })) lines.push(line);
  return lines;
}

describe('jsonlLines', () => {
  it.each([
    ['a bare prompt', 'a secret prompt about my neighbour'],
    ['an unterminated object', '{"customId": "a", "input": {"prompt": "a secret prompt about my neighbour"'],
    ['a trailing comma', '{"customId": "a secret prompt about my neighbour",}'],
  ])('does not quote %s in its refusal', async (_name, text) => {
    const [line] = await read(`{"customId": "ok"}\n${text}\n`).then((lines) => lines.slice(1));
    expect(line).toMatchObject({ line: 2, code: 'INVALID_JSON', message: expect.stringMatching(/^not valid JSON/) });
    const message = (line as { message: string }).message;
    expect(message).not.toMatch(/secret|neighbour|customId/);
  });
});
