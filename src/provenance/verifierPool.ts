/**
 * Verifier processes (src/provenance/verifierProcess.ts), each reading one file at a time, started when first needed
 * and kept for the next. A read that passes its time limit has its process killed (the C2PA library cannot be
 * cancelled otherwise) and fails with `VerificationTimedOut`; the next read starts a new process.
 */
import { fork, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import type { ReadOutcome } from './c2pa';

export interface VerifyRequest {
  id: number;
  asset: { path: string; mimeType: string };
  sidecarPath?: string;
  trustAnchorsPem?: string;
}

export type VerifyResponse = { id: number; outcome: ReadOutcome } | { id: number; error: string };

/** A verification that ran past its time limit; its process was killed. */
export class VerificationTimedOut extends Error {
  constructor(readonly timeLimitMs: number) {
    super(`the verification ran past its time limit of ${timeLimitMs} ms`);
    this.name = 'VerificationTimedOut';
  }
}

export interface VerifierPool {
  /** The manifest of `asset`, read in a verifier process. At most as many at once as the pool has processes. */
  read(asset: { path: string; mimeType: string }, options: { sidecarPath?: string; trustAnchorsPem?: string }): Promise<ReadOutcome>;
  /** Ends every verifier process. */
  close(): void;
}

/** The process's own file, run by the same loader as this one (TypeScript through tsx in development, built JavaScript in production). */
function verifierModule(): { file: string; execArgv: string[] } {
  const typescript = __filename.endsWith('.ts');
  return { file: path.join(__dirname, `verifierProcess${typescript ? '.ts' : '.js'}`), execArgv: typescript ? ['--import', 'tsx'] : [] };
}

export function createVerifierPool(options: { timeLimitMs: number }): VerifierPool {
  const idle: ChildProcess[] = [];
  const all = new Set<ChildProcess>();
  const ready = new WeakMap<ChildProcess, Promise<void>>();
  let nextId = 1;

  function start(): ChildProcess {
    const { file, execArgv } = verifierModule();
    const child = fork(file, [], { execArgv, stdio: ['ignore', 'ignore', 'inherit', 'ipc'], serialization: 'advanced' });
    all.add(child);
    ready.set(
      child,
      new Promise<void>((resolve) => {
        const onReady = (message: unknown) => {
          if (message !== 'ready') return;
          child.off('message', onReady);
          resolve();
        };
        child.on('message', onReady);
        child.once('exit', () => resolve());
      }),
    );
    child.once('exit', () => {
      all.delete(child);
      const at = idle.indexOf(child);
      if (at >= 0) idle.splice(at, 1);
    });
    // An idle verifier keeps no API process alive.
    child.unref();
    child.channel?.unref();
    return child;
  }

  return {
    async read(asset, readOptions) {
      const child = idle.pop() ?? start();
      child.channel?.ref();
      await ready.get(child);
      const id = nextId++;
      return new Promise<ReadOutcome>((resolve, reject) => {
        if (!child.connected) return reject(new Error('the verifier process ended before it was ready'));
        const finish = (outcome: { ok: ReadOutcome } | { err: Error }, keep: boolean) => {
          clearTimeout(timer);
          child.off('message', onMessage);
          child.off('exit', onExit);
          if (keep && child.connected) {
            child.channel?.unref();
            idle.push(child);
          } else {
            child.kill('SIGKILL');
          }
          if ('ok' in outcome) resolve(outcome.ok);
          else reject(outcome.err);
        };
        const onMessage = (message: VerifyResponse) => {
          if (message.id !== id) return;
          if ('error' in message) finish({ err: new Error(`the verifier failed: ${message.error}`) }, true);
          else finish({ ok: message.outcome }, true);
        };
        const onExit = (code: number | null, signal: string | null) => finish({ err: new Error(`the verifier process ended (${signal ?? code})`) }, false);
        const timer = setTimeout(() => finish({ err: new VerificationTimedOut(options.timeLimitMs) }, false), options.timeLimitMs);
        child.on('message', onMessage);
        child.once('exit', onExit);
        const request: VerifyRequest = { id, asset, ...readOptions };
        child.send(request);
      });
    },
    close() {
      for (const child of all) child.kill('SIGKILL');
      idle.length = 0;
    },
  };
}
