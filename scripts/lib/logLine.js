'use strict';
// Renders the app's pino JSON lines for a person at a terminal: time, level, message, then the other fields.
// The log files keep the raw JSON; anything that is not a pino line passes through unchanged.

const LEVELS = { 10: 'trace', 20: 'debug', 30: 'info', 40: 'warn', 50: 'error', 60: 'fatal' };
const OMITTED = new Set(['level', 'time', 'pid', 'msg', 'component', 'sdkComponent', 'hostname']);
const MAX_FIELD_CHARS = 160;

function fieldText(value) {
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return text.length > MAX_FIELD_CHARS ? `${text.slice(0, MAX_FIELD_CHARS)}…` : text;
}

function humanLogLine(line) {
  if (!line.startsWith('{"level":')) return line;
  let entry;
  try {
    entry = JSON.parse(line);
  } catch {
    return line;
  }
  const time = typeof entry.time === 'string' ? entry.time.slice(11, 23) : '';
  const level = (LEVELS[entry.level] || String(entry.level)).padEnd(5);
  const fields = Object.entries(entry)
    .filter(([key]) => !OMITTED.has(key))
    .map(([key, value]) => `${key}=${fieldText(value)}`)
    .join(' ');
  const message = String(entry.msg ?? '').split('\n')[0];
  return [time, level, message, fields].filter((part) => part !== '').join(' ');
}

module.exports = { humanLogLine };
