/** A line of a batch file that is not JSON is refused by its number and the fault's position, never its text. */
import { describe, expect, it } from 'vitest';
import { jsonlLines, type RawLine } from '../../../src/batches/validation';

async function read(text: string): Promise<RawLine[]> {
  const lines: RawLine[] = [];
  for await (const line of jsonlLines((async function* () { yield text; })())) lines.push(line);
  return lines;
}

describe('jsonlLines', () => {
  it.each([
    ['a bare prompt', 'a secret prompt about my neighbour'],
    ['an unterminated object', '{"customId": "a", "input": {"prompt": "a secret prompt about my neighbour"'],
    ['a trailing comma', '{"customId": "a secret prompt about my neighbour",}'],
  ])('does not quote %s in its refusal', async (_name, text) => {
    const [line] = await read(`{"customId": "ok"}\n${text}\n`).then((lines) => lines.slice(1));
    expect(line).toMatchObject({ line: 2, parseError: expect.stringMatching(/^not valid JSON/) });
    const message = (line as { parseError: string }).parseError;
    expect(message).not.toMatch(/secret|neighbour|customId/);
  });
});
