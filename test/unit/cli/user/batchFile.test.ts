/** How `genmedia batch submit` sends a file: inline when that keeps the file's line numbers, uploaded otherwise. */
import { describe, expect, it } from 'vitest';
import { batchSourceOf } from '../../../../src/cli/user/batchFile';

const line = (n: number) => JSON.stringify({ customId: `c${n}`, model: 'pixelforge/forge-pro/text-to-image', input: { prompt: `p${n}` } });
const file = (text: string) => Buffer.from(text, 'utf8');

describe('batchSourceOf', () => {
  it('sends a small file of JSON lines inline, with or without a final newline, CRLF included', () => {
    for (const text of [`${line(1)}\n${line(2)}\n`, `${line(1)}\n${line(2)}`, `${line(1)}\r\n${line(2)}\r\n`]) {
      const source = batchSourceOf(file(text));
      expect(source.kind).toBe('inline');
      expect(source.kind === 'inline' && source.items.map((i) => i.customId)).toEqual(['c1', 'c2']);
    }
  });

  it('uploads a file with a blank line, whose numbering only the uploaded file keeps', () => {
    expect(batchSourceOf(file(`${line(1)}\n\n${line(2)}\n`)).kind).toBe('upload');
  });

  it('uploads a file with a line that is not JSON, so the API names it by its number', () => {
    const bytes = file(`${line(1)}\n{not json\n`);
    expect(batchSourceOf(bytes)).toEqual({ kind: 'upload', bytes });
  });

  it('uploads more than 1,000 lines, or more than 1 MB', () => {
    expect(batchSourceOf(file(Array.from({ length: 1000 }, (_, i) => line(i)).join('\n'))).kind).toBe('inline');
    expect(batchSourceOf(file(Array.from({ length: 1001 }, (_, i) => line(i)).join('\n'))).kind).toBe('upload');
    const long = JSON.stringify({ customId: 'big', model: 'm', input: { prompt: 'x'.repeat(1024 * 1024) } });
    expect(batchSourceOf(file(long)).kind).toBe('upload');
  });
});
