'use strict';
// Child processes: one-shot commands, and long-running services in their own process groups.

const { spawn, spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const { colors } = require('./log');
const { humanLogLine } = require('./logLine');

function which(command) {
  for (const dir of (process.env.PATH || '').split(path.delimiter)) {
    if (!dir) continue;
    const candidate = path.join(dir, command);
    try {
      fs.accessSync(candidate, fs.constants.X_OK);
      if (fs.statSync(candidate).isFile()) return candidate;
    } catch {
      // not in this directory
    }
  }
  return null;
}

/** Runs a command to completion and returns its output (never throws on a non-zero exit). */
function capture(command, args, options = {}) {
  const result = spawnSync(command, args, {
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
    ...options,
    stdio: [options.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
  });
  return {
    status: result.error ? -1 : result.status,
    stdout: result.stdout || '',
    stderr: result.error ? String(result.error.message) : result.stderr || '',
  };
}

/**
 * The environment of an infrastructure process (PostgreSQL, Temporal, MinIO and their command-line tools): ours,
 * without the service's own tracing settings. The Temporal server reads the OTEL_* variables too: it would export its
 * own traces to the service's collector, and it refuses `OTEL_TRACES_EXPORTER=console` outright.
 */
function infrastructureEnv(extra = {}) {
  const env = { ...process.env, ...extra };
  for (const name of Object.keys(env)) if (name.startsWith('OTEL_')) delete env[name];
  return env;
}

/** Runs a command with the terminal attached (installers whose progress the user should see). */
function runVisible(command, args, options = {}) {
  const result = spawnSync(command, args, { stdio: 'inherit', ...options });
  if (result.error) return -1;
  return result.status === null ? 1 : result.status;
}

function isRoot() {
  return typeof process.getuid === 'function' && process.getuid() === 0;
}

/**
 * Command line that runs `command` as the given system user when we are root (PostgreSQL refuses to run as root),
 * and unchanged otherwise. setpriv execs in place, so signals reach the program itself.
 */
function asUser(user, command, args) {
  if (!isRoot()) return [command, args];
  return ['setpriv', [`--reuid=${user}`, `--regid=${user}`, '--init-groups', '--', command, ...args]];
}

function signalGroup(pid, signal) {
  try {
    process.kill(-pid, signal);
    return true;
  } catch {
    return false;
  }
}

function groupAlive(pid) {
  return signalGroup(pid, 0);
}

function delay(ms) {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * A long-running child in its own process group, so that a terminal Ctrl-C reaches only the supervisor and the
 * supervisor can stop the child together with everything it spawned.
 */
class Service {
  /**
   * @param {object} spec
   * @param {string} spec.name         short label used in logs
   * @param {string} spec.command
   * @param {string[]} spec.args
   * @param {object} [spec.env]
   * @param {string} [spec.cwd]
   * @param {string} [spec.logFile]    output goes here (appended)
   * @param {boolean} [spec.echo]      also print output on the console, prefixed with the name
   * @param {string} [spec.stopSignal] first signal on stop (default SIGTERM)
   */
  constructor(spec) {
    this.name = spec.name;
    this.spec = spec;
    this.exitCode = undefined;
    this.exitSignal = undefined;
    this.stopping = false;
    this.child = null;
    this.exited = null;
  }

  start() {
    const { command, args, env, cwd, logFile, echo } = this.spec;
    const log = logFile ? fs.openSync(logFile, 'a') : null;
    this.child = spawn(command, args, {
      cwd,
      env: env || process.env,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.pid = this.child.pid;
    const label = colors.magenta(`[${this.name}]`);
    const forward = (stream, out) => {
      let pending = '';
      stream.on('data', (chunk) => {
        if (log !== null) fs.writeSync(log, chunk);
        if (!echo) return;
        pending += chunk.toString('utf8');
        const lines = pending.split('\n');
        pending = lines.pop();
        for (const line of lines) out.write(`${label} ${humanLogLine(line)}\n`);
      });
      stream.on('end', () => {
        if (echo && pending) out.write(`${label} ${humanLogLine(pending)}\n`);
      });
    };
    forward(this.child.stdout, process.stdout);
    forward(this.child.stderr, process.stderr);
    this.exited = new Promise((resolve) => {
      this.child.on('error', (err) => {
        this.spawnError = err;
      });
      this.child.on('close', (code, signal) => {
        this.exitCode = code;
        this.exitSignal = signal;
        if (log !== null) fs.closeSync(log);
        resolve({ code, signal });
      });
    });
    return this;
  }

  get running() {
    return this.child !== null && this.exitCode === undefined && this.exitSignal === undefined;
  }

  describeExit() {
    if (this.spawnError) return `could not start: ${this.spawnError.message}`;
    if (this.exitSignal) return `killed by ${this.exitSignal}`;
    return `exited with code ${this.exitCode}`;
  }

  /** Stops the whole process group: the stop signal first, SIGKILL after `graceMs`. Resolves when it is gone. */
  async stop(graceMs = 10_000) {
    if (this.child === null || this.pid === undefined) return;
    this.stopping = true;
    if (this.running) signalGroup(this.pid, this.spec.stopSignal || 'SIGTERM');
    const finished = await Promise.race([this.exited.then(() => true), delay(graceMs).then(() => false)]);
    if (!finished) {
      signalGroup(this.pid, 'SIGKILL');
      await this.exited;
    }
    // Whatever the leader left behind in its group goes too.
    for (let i = 0; i < 50 && groupAlive(this.pid); i += 1) {
      signalGroup(this.pid, i === 0 ? 'SIGTERM' : 'SIGKILL');
      await delay(100);
    }
  }

  /** The last lines of the service's log, for error reports. */
  tail(lines = 20) {
    if (!this.spec.logFile) return '';
    try {
      const text = fs.readFileSync(this.spec.logFile, 'utf8');
      return text.trimEnd().split('\n').slice(-lines).join('\n');
    } catch {
      return '';
    }
  }
}

module.exports = { which, capture, runVisible, isRoot, asUser, infrastructureEnv, Service, delay, groupAlive, signalGroup };
