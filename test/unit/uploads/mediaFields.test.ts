import { describe, expect, it } from 'vitest';
import { inputStrings, kindsFromFieldName, mediaRequirement } from '../../../src/uploads/mediaFields';

const elementsSchema = {
  type: 'object',
  properties: {
    prompt: { type: 'string' },
    image_url: { type: 'string' },
    reference: { type: 'string', 'x-media': 'image' },
    soundtrack: { type: 'string', 'x-media': ['audio'] },
    elements: { type: 'array', items: { $ref: '#/$defs/element' } },
  },
  $defs: {
    element: {
      type: 'object',
      properties: { characterImages: { type: 'array', items: { type: 'string' } }, name: { type: 'string' } },
    },
  },
};

describe('media requirements', () => {
  it('come from field names', () => {
    expect(kindsFromFieldName('image_url')).toEqual(['image']);
    expect(kindsFromFieldName('characterImages')).toEqual(['image']);
    expect(kindsFromFieldName('video_url')).toEqual(['video']);
    expect(kindsFromFieldName('audio_url')).toEqual(['audio']);
    expect(kindsFromFieldName('prompt')).toBeNull();
  });

  it('prefer the x-media annotation', () => {
    expect(mediaRequirement({ 'x-media': 'video' }, 'image_url')).toEqual({ kinds: ['video'], annotated: true });
    expect(mediaRequirement({ 'x-media': ['image', 'video'] }, 'x')).toEqual({ kinds: ['image', 'video'], annotated: true });
    expect(mediaRequirement({ 'x-media': 'pdf' }, 'x')).toBeNull();
    expect(mediaRequirement({}, 'image_url')).toEqual({ kinds: ['image'], annotated: false });
  });

  it('are found for every string in the input, through arrays and $ref', () => {
    const strings = inputStrings(
      {
        prompt: 'a cat',
        image_url: 'https://x/a.png',
        reference: 'r',
        soundtrack: 's',
        elements: [{ characterImages: ['c0', 'c1'], name: 'Ann' }],
        extra: { nested: ['n'] },
      },
      elementsSchema,
    );
    const byPath = Object.fromEntries(strings.map((s) => [s.path, s.requirement?.kinds ?? null]));
    expect(byPath).toEqual({
      prompt: null,
      image_url: ['image'],
      reference: ['image'],
      soundtrack: ['audio'],
      'elements[0].characterImages[0]': ['image'],
      'elements[0].characterImages[1]': ['image'],
      'elements[0].name': null,
      'extra.nested[0]': null,
    });
  });

  it('work without a schema', () => {
    const strings = inputStrings({ image_urls: ['a', 'b'] }, {});
    expect(strings.map((s) => [s.path, s.requirement?.kinds])).toEqual([
      ['image_urls[0]', ['image']],
      ['image_urls[1]', ['image']],
    ]);
  });
});
