#!/usr/bin/env node
'use strict';
// The `genmedia` command. npm ci links it into node_modules/.bin (bin/ is a workspace), where `npx genmedia` finds and
// runs it directly: npx never installs the project into its own cache, which would check the project's `engines`
// against whatever Node npx runs on. On a Node older than the project's, it runs itself again on the Node the
// bootstrap provides, as every npm script does (scripts/lib/reexec.js). The TypeScript CLI runs directly, with no
// build step; the repository's tsconfig.json (its `paths` name the SDK in clients/typescript) applies from whatever
// directory the command is run in.
const path = require('node:path');
const log = require('../scripts/lib/log');
const reexec = require('../scripts/lib/reexec');

function runCli() {
  reexec.takeHandover();
  process.env.TSX_TSCONFIG_PATH ??= path.join(__dirname, '..', 'tsconfig.json');
  require('tsx/cjs');
  require('../src/cli/main.ts');
}

/**
 * Signals are passed on as run.js passes them, so Ctrl-C reaches the CLI twice: from the terminal, which signals the
 * whole foreground group, and from here. The CLI acts on the first and ignores another while it decides what to do
 * (src/cli/user/interrupt.ts); while it asks, the terminal is in raw mode and Ctrl-C is a keystroke, not a signal.
 */
function handOver() {
  // Standard output carries the command's answer (--json): what the hand-over says goes to standard error.
  log.toStderr();
  reexec.reexec().then((code) => process.exit(code));
}

try {
  if (reexec.decide() === 'reexec') handOver();
  else runCli();
} catch (err) {
  if (!(err instanceof log.SetupError)) throw err;
  log.error(err.message);
  process.exit(1);
}
