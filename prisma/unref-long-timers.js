/**
 * Preloaded into the Prisma CLI: its schema engine arms long guard timers that it never clears,
 * which keeps a finished command alive for many seconds. Long timers must not hold the process open.
 */
'use strict';
const LONG_TIMER_MS = 2000;
const originalSetTimeout = global.setTimeout;
global.setTimeout = function setTimeoutUnrefLong(callback, ms, ...args) {
  const timer = originalSetTimeout(callback, ms, ...args);
  if (Number(ms) >= LONG_TIMER_MS && typeof timer.unref === 'function') timer.unref();
  return timer;
};
