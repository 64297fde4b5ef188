'use strict';
// What `npm run dev` started, recorded in its data folder. If the supervisor itself dies (SIGKILL, an OOM kill), its
// children keep running and hold the ports; the next start reads the record and stops them: only processes it
// started, each identified by its pid and the kernel's start time for that pid (a reused pid has another start
// time), with the command line kept for the log. The command line is not compared: a service may still be exec-ing
// into its final program (runuser → postgres) when it is recorded.

const fs = require('node:fs');
const path = require('node:path');
const log = require('./log');
const { delay, groupAlive, signalGroup } = require('./proc');

const RECORD_FILE = 'dev-processes.json';
const STOP_GRACE_MS = 10_000;

/** pid's start time (clock ticks after boot, unchanged by exec) and command line, or null when there is no such process. */
function processIdentity(pid) {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name, which is in parentheses and may hold spaces; starttime is field 22.
    const startTime = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
    const commandLine = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    return { startTime, commandLine };
  } catch {
    return null;
  }
}

function sameProcess(entry) {
  const now = processIdentity(entry.pid);
  return now !== null && now.startTime === entry.startTime;
}

class ProcessRecord {
  constructor(dataDir) {
    this.file = path.join(dataDir, RECORD_FILE);
    this.processes = [];
  }

  /** Adds a started service (the leader of its process group) and rewrites the record. */
  add(service) {
    const identity = processIdentity(service.pid);
    if (identity) this.processes.push({ name: service.name, pid: service.pid, ...identity });
    const supervisor = { pid: process.pid, ...processIdentity(process.pid) };
    fs.mkdirSync(path.dirname(this.file), { recursive: true });
    fs.writeFileSync(this.file, `${JSON.stringify({ supervisor, processes: this.processes }, null, 2)}\n`);
  }

  /** Everything stopped cleanly: nothing to clean up next time. */
  clear() {
    fs.rmSync(this.file, { force: true });
  }
}

/**
 * Stops what a dead supervisor of this data folder left running, newest first, and returns their names. Refuses
 * when that supervisor is still alive: two stacks on one data folder would corrupt it.
 */
async function stopLeftovers(dataDir) {
  const file = path.join(dataDir, RECORD_FILE);
  let record;
  try {
    record = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch {
    return [];
  }
  if (record.supervisor && record.supervisor.pid !== process.pid && sameProcess(record.supervisor)) {
    throw new log.SetupError(
      `npm run dev is already running on ${dataDir} (pid ${record.supervisor.pid})`,
      'stop it first (Ctrl-C in its terminal), or use another GENMEDIA_DATA_DIR',
    );
  }
  const stopped = [];
  for (const entry of [...(record.processes || [])].reverse()) {
    if (!sameProcess(entry)) continue;
    signalGroup(entry.pid, 'SIGTERM');
    for (let waited = 0; waited < STOP_GRACE_MS && groupAlive(entry.pid); waited += 100) await delay(100);
    if (groupAlive(entry.pid)) signalGroup(entry.pid, 'SIGKILL');
    stopped.push(entry.name);
  }
  fs.rmSync(file, { force: true });
  return stopped;
}

module.exports = { ProcessRecord, stopLeftovers };
