/** Which uploads a job's erasure deletes: those of ours its input names by file URL, anywhere in the input. */
import { describe, expect, it } from 'vitest';
import { inputFileIds } from '../../../src/erasure/jobContent';
import { fileUrlFor } from '../../../src/uploads/fileUrl';

const BASE = 'https://api.example.test';
const ID_A = 'file_a1b2c3d4e5f6g7h8i9j0kL';
const ID_B = 'file_Z9y8x7w6v5u4t3s2r1q0pO';

describe('inputFileIds', () => {
  it('finds our file URLs in nested fields and arrays, once each', () => {
    const input = {
      prompt: 'Ann walks through the scene',
      image_url: fileUrlFor(BASE, ID_A),
      elements: [{ characterImages: [fileUrlFor(BASE, ID_B), fileUrlFor(BASE, ID_A)] }],
    };
    expect(inputFileIds(BASE, input).sort()).toEqual([ID_A, ID_B].sort());
  });

  it('ignores other hosts, malformed ids and prompts that mention a path', () => {
    const input = {
      prompt: `see ${fileUrlFor(BASE, ID_A)} for the look`,
      image_url: fileUrlFor('https://elsewhere.test', ID_A),
      mask_url: `${BASE}/v1/files/not-an-id`,
    };
    expect(inputFileIds(BASE, input)).toEqual([]);
  });

  it('finds none in an erased input', () => {
    expect(inputFileIds(BASE, {})).toEqual([]);
  });
});
