'use strict';
// How long Temporal keeps a closed workflow's history (a job's input, its steps and their results) before it deletes
// it: the namespace retention. One value for every Temporal the project starts: the dev server of `npm run dev` and
// `npm test`, the server build of `npm run cluster`, the workflow tests' own dev servers and docker-compose.yml
// (whose default repeats it, checked by a test). A job erased by its owner has its history deleted at once.

const DEFAULT_NAMESPACE_RETENTION = '72h';
const VARIABLE = 'TEMPORAL_NAMESPACE_RETENTION';
/** Temporal refuses a retention under one day. */
const MIN_SECONDS = 24 * 3600;
const UNIT_SECONDS = { h: 3600, d: 86400 };

/**
 * The configured retention: `TEMPORAL_NAMESPACE_RETENTION`, whole hours (`72h`) or days (`3d`), at least one day.
 * @returns {{ text: string, seconds: number }}
 */
function namespaceRetention(env = process.env) {
  const text = (env[VARIABLE] || DEFAULT_NAMESPACE_RETENTION).trim();
  const match = /^([1-9][0-9]{0,5})([hd])$/.exec(text);
  if (!match) throw new Error(`${VARIABLE} must be whole hours or days, like 72h or 3d (got "${text}")`);
  const seconds = Number(match[1]) * UNIT_SECONDS[/** @type {'h' | 'd'} */ (match[2])];
  if (seconds < MIN_SECONDS) throw new Error(`${VARIABLE} must be at least 24h: Temporal refuses a shorter one (got "${text}")`);
  return { text, seconds };
}

module.exports = { DEFAULT_NAMESPACE_RETENTION, VARIABLE, namespaceRetention };
