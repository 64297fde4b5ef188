import { describe, expect, it } from 'vitest';
import { filenameProblem } from '../../../src/shared/uploadFilename';

describe('filenameProblem', () => {
  it.each(['scene.png', 'My photo (1).JPG', 'été.webp', 'a', 'x'.repeat(255), '.hidden', 'file..png'])(
    'accepts %j',
    (name) => expect(filenameProblem(name)).toBeNull(),
  );

  it.each([
    ['', /empty/],
    ['   ', /empty/],
    ['x'.repeat(256), /at most 255/],
    ['../etc/passwd', /path/],
    ['dir/file.png', /path/],
    ['C:\\x\\file.png', /path/],
    ['.', /path/],
    ['..', /path/],
    ['a\u0000b.png', /control/],
    ['line\nbreak.png', /control/],
    ['tab\t.png', /control/],
    ['del\u007f.png', /control/],
    ['c1\u0085.png', /control/],
    ['evil\u202Egnp.exe', /control/],
  ])('rejects %j', (name, message) => {
    expect(filenameProblem(name)).toMatch(message);
  });

  it('counts characters, not UTF-16 units', () => {
    expect(filenameProblem('😀'.repeat(255))).toBeNull();
    expect(filenameProblem('😀'.repeat(256))).toMatch(/at most/);
  });
});
