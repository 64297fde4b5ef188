/**
 * Nominal processing time of a generation, before the built-in provider's time scale (providers.timeScale): the
 * spec's figures, about 30 s per image job and 240 s per video job. Also usable for the submit ETA.
 */
export const NOMINAL_IMAGE_SECONDS = 30;
export const NOMINAL_VIDEO_SECONDS = 240;

export function isVideoCapability(capability: string): boolean {
  return capability.endsWith('-to-video') || capability.includes('-to-video-');
}

export function nominalProcessingSeconds(capability: string): number {
  return isVideoCapability(capability) ? NOMINAL_VIDEO_SECONDS : NOMINAL_IMAGE_SECONDS;
}
