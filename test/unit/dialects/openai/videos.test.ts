import { describe, expect, it } from 'vitest';
import { listedValueOf, noVideosReason, videoInput } from '../../../../src/dialects/openai/videos';
import { DomainError } from '../../../../src/shared/errors';

const seconds = { '5': { duration: '5' }, '10': { duration: '10' } };
const sizes = { '640x360': { aspect_ratio: '16:9' }, '360x640': { aspect_ratio: '9:16' } };
const textToVideo = { seconds, sizes };
const imageToVideo = { seconds, sizes: { '640x360': {} }, inputReference: { field: 'image_url', required: true } };

function refusal(call: () => unknown): { code: string; param: string; message: string } {
  try {
    call();
  } catch (e) {
    const error = e as DomainError;
    return { code: error.code, param: (error.details as { path: string }[])[0]!.path, message: error.message };
  }
  throw new Error('not refused');
}

describe('OpenAI video requests as job inputs', () => {
  it('maps seconds and size through the catalog, leaving what is not sent to the model', () => {
    expect(videoInput(textToVideo, { model: 'm', prompt: 'p', seconds: '10', size: '360x640' }, undefined)).toEqual({ prompt: 'p', duration: '10', aspect_ratio: '9:16' });
    expect(videoInput(textToVideo, { model: 'm', prompt: 'p' }, undefined)).toEqual({ prompt: 'p' });
    expect(videoInput(imageToVideo, { model: 'm', prompt: 'p', size: '640x360' }, 'https://x/y.png')).toEqual({ prompt: 'p', image_url: 'https://x/y.png' });
  });

  it('refuses seconds, a size or an input_reference the model cannot take, and a missing reference it needs', () => {
    expect(refusal(() => videoInput(textToVideo, { model: 'm', prompt: 'p', seconds: '4' }, undefined))).toMatchObject({ code: 'INVALID_INPUT', param: 'seconds' });
    expect(refusal(() => videoInput(textToVideo, { model: 'm', prompt: 'p', seconds: '4' }, undefined)).message).toContain('5, 10');
    expect(refusal(() => videoInput(textToVideo, { model: 'm', prompt: 'p', size: '1280x720' }, undefined))).toMatchObject({ param: 'size' });
    expect(refusal(() => videoInput(textToVideo, { model: 'm', prompt: 'p' }, 'https://x/y.png'))).toMatchObject({ param: 'input_reference' });
    expect(refusal(() => videoInput(imageToVideo, { model: 'm', prompt: 'p' }, undefined))).toMatchObject({ param: 'input_reference' });
  });

  it('refuses any size for a model that lists none, saying to leave it out, and keeps a fixed length it lists with no field', () => {
    const kling = { seconds, sizes: {}, inputReference: { field: 'image_url', required: true } };
    const refused = refusal(() => videoInput(kling, { model: 'kling', prompt: 'p', size: '1280x720' }, 'https://x/y.png'));
    expect(refused).toMatchObject({ code: 'INVALID_INPUT', param: 'size' });
    expect(refused.message).toBe("The model 'kling' takes no size: leave size out (its frame follows the input_reference image)");
    const veo = { seconds: { '8': {} }, sizes: { '1280x720': { aspect_ratio: '16:9' } }, inputReference: { field: 'image_url', required: true } };
    expect(videoInput(veo, { model: 'veo', prompt: 'p', seconds: '8', size: '1280x720' }, 'https://x/y.png')).toEqual({ prompt: 'p', aspect_ratio: '16:9', image_url: 'https://x/y.png' });
    expect(listedValueOf(veo.seconds, {})).toBe('8');
  });

  it('says why a model without a video mapping is refused: it makes no videos, or its input needs what videos.create cannot send', () => {
    const elements = { type: 'object', required: ['prompt', 'image_url', 'elements'], properties: { prompt: { type: 'string' }, image_url: { type: 'string', format: 'uri' }, elements: { type: 'array' } } };
    expect(noVideosReason('reel-2-elements', 'video', elements)).toBe(
      "The model 'reel-2-elements' does not take video requests: its input needs elements, which OpenAI's videos.create cannot send " +
        '(it sends a prompt, seconds, size and one input_reference); submit it with POST /v1/jobs/submit',
    );
    expect(noVideosReason('forge-pro', 'image', { required: ['prompt'] })).toBe("The model 'forge-pro' does not take video requests: it does not make videos");
  });

  it("reads a job's seconds and size back from its input: the listed value whose fields it has", () => {
    expect(listedValueOf(sizes, { aspect_ratio: '9:16', duration: '5' })).toBe('360x640');
    expect(listedValueOf(seconds, { duration: '7' })).toBeNull();
    expect(listedValueOf({ '640x360': {} }, {})).toBe('640x360');
  });
});
