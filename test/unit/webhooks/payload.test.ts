import { describe, expect, it } from 'vitest';
import { buildWebhookPayload } from '../../../src/webhooks/payload';

const occurredAt = new Date('2030-05-06T07:08:09.000Z');

function job(input: Record<string, unknown>) {
  return {
    jobId: 'job_123',
    status: 'completed',
    progress: 100,
    model: 'acme/vision/text-to-image',
    createdAt: '2030-05-06T07:07:00.000Z',
    completedAt: '2030-05-06T07:08:09.000Z',
    input,
    outputs: [{ url: 'https://cdn.example.com/o/1.png', contentType: 'image/png' }],
  };
}

describe('buildWebhookPayload', () => {
  it('wraps the job record in a versioned envelope, byte-identical to the body', () => {
    const record = job({ prompt: 'a red fox', num_images: '1' });
    const built = buildWebhookPayload({ type: 'job.completed', occurredAt, job: record });
    expect(JSON.parse(built.body)).toEqual({
      type: 'job.completed',
      version: 'v1',
      timestamp: '2030-05-06T07:08:09.000Z',
      data: record,
    });
    expect(built.envelope.truncated).toBeUndefined();
    expect(built.sizeBytes).toBe(Buffer.byteLength(built.body));
  });

  it('truncates a huge input to fit under the limit and lists what was cut', () => {
    const prompt = 'ü'.repeat(30_000);
    const elements = Array.from({ length: 500 }, (_, i) => ({ name: `c${i}`, characterImages: [`https://x/${i}.png`] }));
    const built = buildWebhookPayload({ type: 'job.failed', occurredAt, job: job({ prompt, elements, quality: 'pro' }) });
    expect(built.sizeBytes).toBeLessThanOrEqual(20 * 1024);
    expect(Buffer.byteLength(built.body)).toBe(built.sizeBytes);
    const parsed = JSON.parse(built.body);
    expect(parsed.truncated).toEqual(expect.arrayContaining(['data.input.prompt', 'data.input.elements']));
    expect(parsed.data.input.quality).toBe('pro');
    expect(parsed.data.input.prompt.length).toBeGreaterThan(1000);
    expect(prompt.startsWith(parsed.data.input.prompt)).toBe(true);
    expect(parsed.data.jobId).toBe('job_123');
    expect(parsed.data.outputs).toEqual(job({}).outputs);
  });

  it('respects a custom limit and never splits a surrogate pair', () => {
    const built = buildWebhookPayload({
      type: 'job.completed',
      occurredAt,
      job: job({ prompt: '🦊'.repeat(5000) }),
      maxBytes: 4096,
    });
    expect(built.sizeBytes).toBeLessThanOrEqual(4096);
    const prompt: string = JSON.parse(built.body).data.input.prompt;
    expect(prompt.length).toBeGreaterThan(0);
    expect(prompt).toMatch(/^(🦊)+$/u);
  });

  it('drops the input when even short values do not fit', () => {
    const input = Object.fromEntries(Array.from({ length: 3000 }, (_, i) => [`field_${i}`, i]));
    const built = buildWebhookPayload({ type: 'job.completed', occurredAt, job: job(input), maxBytes: 4096 });
    const parsed = JSON.parse(built.body);
    expect(parsed.data.input).toEqual({});
    expect(parsed.truncated).toEqual(['data.input']);
  });
});
