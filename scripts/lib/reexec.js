'use strict';
// run.js on a Node older than the project's runs itself again on the provided Node, with that Node's directory first
// on PATH: every process below it (npm ci, vitest and its forks, tsx, the Prisma CLI, the API and the workers) is
// started either by `process.execPath` or by a `#!/usr/bin/env node` script, so all of them run on it.

const path = require('node:path');
const { spawn } = require('node:child_process');
const nodeRuntime = require('./nodeRuntime');
const { SetupError } = require('./log');

/** Set on the re-executed process only: the machine's Node version, and whether Node was installed on the way. */
const HANDOVER = 'GENMEDIA_NODE_HANDOVER';

/**
 * What run.js does with the Node it was started on.
 * @returns {'run'|'reexec'} run here, or run again on the provided Node
 */
function decide(version = process.versions.node, env = process.env) {
  if (nodeRuntime.isSupported(version)) return 'run';
  // The provided Node was verified before the hand-over, so an old Node here means the hand-over itself went wrong.
  if (env[HANDOVER]) throw new SetupError(`handed over to Node ${nodeRuntime.VERSION} and still running on v${version}`, `remove ${nodeRuntime.HOME} and run again`);
  return 'reexec';
}

let handover = null;

/**
 * The hand-over this process came from, if any: the marker is read once and removed, so that the processes this one
 * starts do not inherit it.
 * @returns {{ machineNode: string, installed: boolean } | null}
 */
function takeHandover(env = process.env) {
  const value = env[HANDOVER];
  if (value) {
    delete env[HANDOVER];
    const [machineNode, installed] = value.split(',');
    handover = { machineNode, installed: installed === 'installed' };
  }
  return handover;
}

function envWithNodeFirst(binDir, env, marker) {
  return { ...env, PATH: [binDir, env.PATH].filter(Boolean).join(path.delimiter), [HANDOVER]: marker };
}

/**
 * Runs this script again on the provided Node and resolves with its exit code. Signals sent to this process (npm
 * forwards Ctrl-C and SIGTERM to it) are passed on; a child killed by a signal ends this process with the same one.
 */
function reexec(argv = process.argv.slice(1)) {
  const { binDir, installed } = nodeRuntime.ensureNode();
  const marker = `${process.version}${installed ? ',installed' : ''}`;
  const child = spawn(path.join(binDir, 'node'), [...process.execArgv, ...argv], {
    stdio: 'inherit',
    env: envWithNodeFirst(binDir, process.env, marker),
  });
  const forward = (signal) => child.kill(signal);
  const signals = ['SIGINT', 'SIGTERM', 'SIGHUP'];
  for (const signal of signals) process.on(signal, forward);
  return new Promise((resolve) => {
    child.on('error', (err) => {
      console.error(`cannot start ${path.join(binDir, 'node')}: ${err.message}`);
      resolve(1);
    });
    child.on('close', (code, signal) => {
      for (const s of signals) process.removeListener(s, forward);
      if (signal) process.kill(process.pid, signal);
      resolve(code === null ? 1 : code);
    });
  });
}

module.exports = { HANDOVER, decide, takeHandover, envWithNodeFirst, reexec };
