import { describe, expect, it } from 'vitest';
import { classifyRenderError } from '../../../src/providers/local/adapter';
import { FfmpegError } from '../../../src/providers/media/ffmpeg';

const live = new AbortController().signal;

describe('classifyRenderError', () => {
  it('treats a renderer that refuses its input as a permanent input error, without the library text', () => {
    const glib = new Error('Input buffer has corrupt header: glib: XML parse error: Error domain 1 code 9 on line 1 column 210');
    const error = classifyRenderError(glib, live);
    expect(error).toMatchObject({ code: 'PROVIDER_REJECTED_INPUT', retryable: false });
    expect((error as Error).message).not.toMatch(/glib|XML|buffer/i);
  });

  it('keeps system failures retryable', () => {
    expect(classifyRenderError(Object.assign(new Error('EMFILE: too many open files'), { code: 'EMFILE' }), live)).toMatchObject({
      code: 'PROVIDER_UNAVAILABLE',
      retryable: true,
    });
    expect(classifyRenderError(new FfmpegError('ffmpeg exited with 1', 1, ''), live)).toMatchObject({ retryable: true });
  });
});
