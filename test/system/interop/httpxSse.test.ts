/**
 * A job's event stream as a Python client reads it with httpx-sse (test/interop/python/sse_resume.py): the client
 * leaves after the first events and resumes with `Last-Event-ID`; it receives every later event exactly once, the
 * stream ends after the terminal event, and reconnecting after that answers 204.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { post } from '../../support/api';
import { runPythonProgram } from '../../support/python';
import { createTestAccount, startTestStack, type TestStack } from '../../support/stack';

let stack: TestStack;

beforeAll(async () => {
  // Jobs of a few seconds, so the first connection sees the job while it runs.
  stack = await startTestStack({ providers: ['pixelforge'], tuning: { providers: { timeScale: 0.1 } } });
});

afterAll(() => stack?.stop());

describe('httpx-sse on a job stream', () => {
  it('reads the stream, resumes it with Last-Event-ID and gets every event once', async () => {
    const account = await createTestAccount(stack.prisma, { creditsMicroCents: 1_000_000n });
    const submitted = await post(`${stack.url}/v1/jobs/submit`, account.apiKey, {
      model: 'pixelforge/forge-pro/text-to-image',
      input: { prompt: 'a lighthouse followed from Python', num_images: '2' },
    });
    expect(submitted.status).toBe(201);

    const seen = await runPythonProgram('sse_resume.py', [], { baseUrl: stack.url, apiKey: account.apiKey, jobId: submitted.body.jobId, readFirst: 2 });

    expect(seen.first.map((e: { type: string }) => e.type)).toEqual(['job.created', expect.stringMatching(/^job\./)]);
    const all = [...seen.first, ...seen.resumed];
    // Ids are the job's sequence, 1, 2, 3, ... with no gap and no repeat across the two connections.
    expect(all.map((e: { id: string }) => e.id)).toEqual(all.map((_: unknown, i: number) => String(i + 1)));
    for (const event of all) {
      expect(event.sequence).toBe(Number(event.id));
      expect(event.event).toBe(event.type);
    }
    expect(seen.resumed.length).toBeGreaterThan(0);
    expect(seen.resumed.at(-1)).toMatchObject({ type: 'job.completed', status: 'completed' });
    expect(seen.afterEndStatus).toBe(204);
  }, 90_000);
});
