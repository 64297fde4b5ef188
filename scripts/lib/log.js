'use strict';
// Console output of the bootstrap and the supervisors: one prefix, optional colour.

const useColor = Boolean(process.stdout.isTTY) && !process.env.NO_COLOR;
const paint = (code) => (text) => (useColor ? `\x1b[${code}m${text}\x1b[0m` : text);
const colors = {
  dim: paint('2'),
  bold: paint('1'),
  red: paint('31'),
  green: paint('32'),
  yellow: paint('33'),
  blue: paint('34'),
  magenta: paint('35'),
  cyan: paint('36'),
};

const PREFIX = '[genmedia]';

let out = (line) => console.log(line);

/** Progress lines go to standard error from now on, for a process whose standard output is its answer. */
function toStderr() {
  out = (line) => console.error(line);
}

function info(message) {
  out(`${colors.cyan(PREFIX)} ${message}`);
}

function ok(message) {
  out(`${colors.cyan(PREFIX)} ${colors.green('ok')} ${message}`);
}

function warn(message) {
  console.warn(`${colors.cyan(PREFIX)} ${colors.yellow('warning')} ${message}`);
}

function error(message) {
  console.error(`${colors.cyan(PREFIX)} ${colors.red('error')} ${message}`);
}

/** A failure the user can act on: what is missing and how to fix it. */
class SetupError extends Error {
  constructor(message, fix) {
    super(fix ? `${message}\n  fix: ${fix}` : message);
    this.name = 'SetupError';
  }
}

function seconds(ms) {
  return `${(ms / 1000).toFixed(1)}s`;
}

module.exports = { info, ok, warn, error, toStderr, colors, SetupError, seconds };
