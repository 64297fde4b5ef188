/**
 * How long a generation waits in an upstream's own queue, for an upstream that reports the generation's position in it
 * (fal's `queue_position`): at the pace the queue has moved for this generation since its position was first seen.
 * Before it has moved, the pace is known only to be slower than one place in the time it has stood still, so each
 * place left is taken to last at least that long.
 */

/** Where the generation was first seen in the upstream's queue. */
export interface FirstQueuePosition {
  position: number;
  seenAtMs: number;
}

/** Seconds until the upstream starts the generation now at `position`, 0 once it is next or running. */
export function upstreamQueueWaitSeconds(first: FirstQueuePosition, position: number, nowMs: number): number {
  if (position <= 0) return 0;
  const elapsedSeconds = Math.max(0, (nowMs - first.seenAtMs) / 1000);
  const moved = first.position - position;
  if (moved > 0 && elapsedSeconds > 0) return (position * elapsedSeconds) / moved;
  return position * elapsedSeconds;
}
