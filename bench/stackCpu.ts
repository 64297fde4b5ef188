/**
 * CPU time of a benchmark's whole stack, read from /proc (utime + stime, with exited children's): the services the
 * test stack's supervisor started (this process's siblings and their descendants: PostgreSQL, the Temporal servers,
 * MinIO) and this process itself, split by its threads' kind (the main thread, which runs the API, the activities
 * and the clients; libuv's pool; V8's helpers; Temporal's Rust core; the workflow threads; libvips's, which render). Only processes of this
 * stack are read, not other work on the machine.
 */
import { readdirSync, readFileSync } from 'node:fs';

const CLOCK_TICKS_PER_SECOND = 100;

/** CPU ms by part of the stack. */
export type CpuSnapshot = Map<string, number>;

function statFields(file: string): string[] | undefined {
  try {
    const stat = readFileSync(file, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return undefined; // gone
  }
}

function ticksToMs(ticks: number): number {
  return (ticks * 1000) / CLOCK_TICKS_PER_SECOND;
}

/** A service by its command line; undefined for what is not one of the stack's. */
function serviceOf(commandLine: string): string | undefined {
  if (/temporal server start-dev/.test(commandLine)) return 'Temporal dev server';
  if (/--config-file .* start/.test(commandLine)) return 'Temporal on PostgreSQL (idle here)';
  if (/--config ui-config/.test(commandLine)) return 'Temporal UI (idle here)';
  if (/(^|\/)postgres[ :]|^postgres:/.test(commandLine)) return 'PostgreSQL';
  if (/(^|\/)minio /.test(commandLine)) return 'MinIO';
  return undefined;
}

/** This process's thread kinds by the names Node and the Temporal SDK give them. */
function threadKindOf(name: string): string {
  if (name === 'MainThread') return 'bench process: main thread';
  if (name === 'libuv-worker') return 'bench process: libuv pool';
  if (name === 'V8Worker' || name === 'DelayedTaskSche') return 'bench process: V8 helpers (GC, compiler)';
  if (name === 'WorkerThread') return 'bench process: workflow threads';
  if (/^tokio|^temporal/.test(name)) return 'bench process: Temporal core (Rust)';
  if (name === 'libvips worker') return 'bench process: libvips (the render)';
  return `bench process: other threads`;
}

function processTree(): Map<number, { ppid: number; commandLine: string }> {
  const tree = new Map<number, { ppid: number; commandLine: string }>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const fields = statFields(`/proc/${entry}/stat`);
    if (!fields) continue;
    let commandLine = '';
    try {
      commandLine = readFileSync(`/proc/${entry}/cmdline`, 'utf8').replace(/\0/g, ' ').trim();
    } catch {
      continue;
    }
    tree.set(Number(entry), { ppid: Number(fields[1]), commandLine });
  }
  return tree;
}

/** The supervisor's descendants other than this process's own. */
function stackServices(): { pid: number; service: string }[] {
  const tree = processTree();
  const supervisor = process.ppid;
  const isUnder = (pid: number, root: number): boolean => {
    for (let at = pid, hops = 0; at > 1 && hops < 20; hops++) {
      if (at === root) return true;
      at = tree.get(at)?.ppid ?? 0;
    }
    return false;
  };
  const services: { pid: number; service: string }[] = [];
  for (const [pid, { commandLine }] of tree) {
    if (pid === process.pid || isUnder(pid, process.pid) || !isUnder(pid, supervisor)) continue;
    const service = serviceOf(commandLine);
    // PostgreSQL's live backends are counted here, those that have exited through the postmaster's cutime.
    if (service) services.push({ pid, service });
  }
  return services;
}

/** CPU ms used so far by each part of the stack. */
export function stackCpu(): CpuSnapshot {
  const snapshot: CpuSnapshot = new Map();
  const add = (name: string, ms: number) => snapshot.set(name, (snapshot.get(name) ?? 0) + ms);
  for (const { pid, service } of stackServices()) {
    const fields = statFields(`/proc/${pid}/stat`);
    if (!fields) continue;
    // utime, stime, and the children's that were waited for (cutime, cstime): backends that have exited.
    add(service, ticksToMs(Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14])));
  }
  let threadsMs = 0;
  for (const tid of readdirSync(`/proc/${process.pid}/task`)) {
    const fields = statFields(`/proc/${process.pid}/task/${tid}/stat`);
    if (!fields) continue;
    let name = '';
    try {
      name = readFileSync(`/proc/${process.pid}/task/${tid}/comm`, 'utf8').trim();
    } catch {
      continue;
    }
    const ms = ticksToMs(Number(fields[11]) + Number(fields[12]));
    threadsMs += ms;
    add(threadKindOf(name), ms);
  }
  const self = statFields(`/proc/${process.pid}/stat`);
  // Threads that have ended (libvips's come and go) are in the process's total only.
  if (self) add('bench process: threads since ended (libvips\'s)', Math.max(0, ticksToMs(Number(self[11]) + Number(self[12])) - threadsMs));
  return snapshot;
}

/** What each part used between two snapshots, in ms. */
export function cpuBetween(before: CpuSnapshot, after: CpuSnapshot): CpuSnapshot {
  const used: CpuSnapshot = new Map();
  for (const [name, ms] of after) used.set(name, ms - (before.get(name) ?? 0));
  return used;
}

/** Adds `more` into `total`. */
export function addCpu(total: CpuSnapshot, more: CpuSnapshot): void {
  for (const [name, ms] of more) total.set(name, (total.get(name) ?? 0) + ms);
}
