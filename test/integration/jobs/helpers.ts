export { bearer, get, post } from '../../support/api';

export const TEXT_TO_IMAGE = 'pixelforge/forge-pro/text-to-image';
export const ELEMENTS_VIDEO = 'motionworks/reel-2/image-to-video-elements';

export function imageJob(overrides: Record<string, unknown> = {}) {
  return { model: TEXT_TO_IMAGE, input: { prompt: 'a lighthouse at dusk', ...overrides } };
}
