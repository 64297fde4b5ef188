import { describe, expect, it } from 'vitest';
import { createInputFileReader } from '../../../src/providers/inputFileReader';
import { ProviderError } from '../../../src/providers/types';
import { locateOutputs } from '../../../src/outputs/storing/outputPaths';
import { inputFileMessage, JOB_ERROR_MESSAGES, publicJobError } from '../../../src/shared/jobFailures';

/** What no client-visible message may hold: a file path, a URL, an exception class, a stack line. */
const INTERNAL_TEXT = /\/tmp\/|genmedia-job_|https?:\/\/|\b[A-Z]\w*Error\b|URI malformed|\n\s+at /;

describe('publicJobError', () => {
  it('gives a known code its fixed text, whatever the failure said', () => {
    const raw = [
      { code: 'BAD_OUTPUT', message: 'output image /tmp/genmedia-job_abc-x1/image-1.png does not decode' },
      { code: 'PROVIDER_UNAVAILABLE', message: 'local render failed: URI malformed' },
      { code: 'PROVIDER_REJECTED_INPUT', message: 'fal answered 422: see https://queue.fal.run/fal-ai/flux/requests/1' },
      { code: 'BAD_OUTPUT', message: 'output download failed: GET https://cdn.example.com/o.png answered 404' },
      { code: 'PROVIDER_TIMEOUT', message: 'Google operation status gave no answer: TypeError: fetch failed\n    at node:internal/deps/undici' },
    ];
    for (const error of raw) {
      const shown = publicJobError(error);
      expect(shown).toEqual({ code: error.code, message: JOB_ERROR_MESSAGES[error.code] });
      expect(shown.message).not.toMatch(INTERNAL_TEXT);
    }
  });

  it('turns a failure without a known code (an S3 or database error, a library exception) into INTERNAL_ERROR', () => {
    for (const error of [
      { code: 'S3Error', message: 'The specified bucket does not exist' },
      { code: 'PrismaClientKnownRequestError', message: 'Invalid `prisma.job.update()` invocation in /work/main/src/jobs/store.ts:319' },
      { code: 'URIError', message: 'URI malformed' },
      { code: 'Error', message: 'ENOENT: no such file or directory, open /tmp/genmedia-job_1/output-1' },
    ]) {
      expect(publicJobError(error)).toEqual({ code: 'INTERNAL_ERROR', message: 'The job failed because of an internal error' });
    }
  });

  it("keeps an input file's message, built only from the URL the client gave, and nothing else", () => {
    const url = 'https://images.example.com/dog.png';
    for (const message of [inputFileMessage(url, 'unreadable'), inputFileMessage(url, 'malformed')]) {
      expect(publicJobError({ code: 'INPUT_FETCH_FAILED', message })).toEqual({ code: 'INPUT_FETCH_FAILED', message });
    }
    const leaky = `input file ${url} could not be fetched: refused: input file address 10.0.0.7 is a private address`;
    expect(publicJobError({ code: 'INPUT_FETCH_FAILED', message: leaky })).toEqual({ code: 'INPUT_FETCH_FAILED', message: 'An input file could not be fetched' });
  });

  it('has a plain text for every code', () => {
    for (const message of Object.values(JOB_ERROR_MESSAGES)) expect(message).not.toMatch(INTERNAL_TEXT);
  });
});

describe('malformed percent-encoding', () => {
  it('in an input file URL is the input error INPUT_FETCH_FAILED, not retryable, found before any connection', async () => {
    // Port 1 refuses connections: had the reader tried to connect, the failure would be a retryable "could not be fetched".
    const url = 'http://127.0.0.1:1/pictures/%C3.png';
    const reader = createInputFileReader({ allowPrivate: true, maxBytes: 1024, fetchTimeoutMs: 1_000 });
    const error = await reader(url).read(new AbortController().signal).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({ code: 'INPUT_FETCH_FAILED', retryable: false, message: inputFileMessage(url, 'malformed') });
  });

  it("in an upstream's data: URI output is a BAD_OUTPUT, not retryable", () => {
    let error: unknown;
    try {
      locateOutputs({ image: 'data:image/png,%E0%A4%A' }, ['image']);
    } catch (e) {
      error = e;
    }
    expect(error).toMatchObject({ code: 'BAD_OUTPUT', retryable: false });
  });
});
