/**
 * Live job events for one API process: one PostgreSQL `LISTEN job_events` connection and one reader per account
 * that has listeners, however many streams are open. The `job_events` trigger notifies with the account id at
 * commit; the hub then reads that account's rows after its cursor and hands them to every listener in order.
 * A slow safety tick re-reads tracked accounts in case a notification was lost (a reconnect of the LISTEN client).
 * The same connection listens on `batch_changes` (the batch id, from the batch tables' triggers) for the batches'
 * progress streams: those hear that their batch changed, and read it themselves.
 */
import pg from 'pg';
import { sqlPool, type PrismaClient } from '../../db/prisma';
import type { Logger } from '../../logger';
import { readAccountEvents, type JobEventRow } from './rows';

/** Receives new rows in order; `null` once when the hub closes (the process is stopping). */
export type JobEventListener = (rows: JobEventRow[] | null) => void;

/** Hears that the batch may have changed; `null` once when the hub closes. */
export type BatchChangeListener = (changed: true | null) => void;

export interface JobEventSubscription {
  /** Every event of the account up to this account sequence is in PostgreSQL; the listener gets those after it. */
  readonly watermark: bigint;
  close(): void;
}

export interface JobEventHub {
  subscribe(accountId: string, listener: JobEventListener): Promise<JobEventSubscription>;
  /**
   * Calls `listener` whenever the batch's counts, cost or status may have changed: on its notification, and after the
   * connection was lost and made again (a notification may have been missed meanwhile). Listening has begun when it resolves.
   */
  watchBatch(batchId: string, listener: BatchChangeListener): Promise<{ close(): void }>;
  /** Number of listeners (of job events and of batches), for tests and metrics. */
  listenerCount(): number;
  close(): Promise<void>;
}

interface TrackedAccount {
  cursor: bigint;
  listeners: Set<JobEventListener>;
  reading: Promise<void> | null;
  readAgain: boolean;
}

const CHANNEL = 'job_events';
const BATCH_CHANNEL = 'batch_changes';
const SAFETY_TICK_MS = 5_000;
/** Rows read at a time; a read that returns fewer has caught up. */
const READ_BATCH = 500;
const RECONNECT_DELAY_MS = 1_000;

export function createJobEventHub(options: { prisma: PrismaClient; databaseUrl: string; logger: Logger }): JobEventHub {
  const { prisma, logger } = options;
  const accounts = new Map<string, TrackedAccount>();
  const tracking = new Map<string, Promise<TrackedAccount>>();
  const batches = new Map<string, Set<BatchChangeListener>>();
  let client: pg.Client | null = null;
  let connecting: Promise<void> | null = null;
  let tick: NodeJS.Timeout | null = null;
  let closed = false;

  async function connect(): Promise<void> {
    const next = new pg.Client({ connectionString: options.databaseUrl });
    next.on('notification', (message) => {
      if (!message.payload) return;
      if (message.channel === BATCH_CHANNEL) tellBatch(message.payload);
      else readAccount(message.payload);
    });
    next.on('error', (err) => {
      logger.warn({ err }, 'job event listener connection lost; reconnecting');
      if (client === next) client = null;
      next.end().catch(() => undefined);
      setTimeout(() => void ensureListening().then(() => {
        readAll();
        for (const batchId of batches.keys()) tellBatch(batchId);
      }, () => undefined), RECONNECT_DELAY_MS).unref();
    });
    await next.connect();
    await next.query(`LISTEN ${CHANNEL}; LISTEN ${BATCH_CHANNEL}`);
    client = next;
  }

  function ensureListening(): Promise<void> {
    if (closed || client) return Promise.resolve();
    connecting ??= connect().finally(() => {
      connecting = null;
    });
    return connecting;
  }

  function tellBatch(batchId: string) {
    for (const listener of batches.get(batchId) ?? []) listener(true);
  }

  function readAll() {
    for (const accountId of accounts.keys()) readAccount(accountId);
  }

  /** Reads the account's new rows and dispatches them; concurrent requests fold into one more read. */
  function readAccount(accountId: string) {
    const account = accounts.get(accountId);
    if (!account) return;
    if (account.reading) {
      account.readAgain = true;
      return;
    }
    account.reading = (async () => {
      do {
        account.readAgain = false;
        try {
          for (;;) {
            const rows = await readAccountEvents(prisma, accountId, { after: account.cursor, limit: READ_BATCH });
            if (rows.length === 0) break;
            account.cursor = rows[rows.length - 1].accountSequence;
            for (const listener of account.listeners) listener(rows);
            // A short batch was all there was when it was read; a row committed since is notified after its commit,
            // which sets readAgain if it came while this read was under way.
            if (rows.length < READ_BATCH) break;
          }
        } catch (err) {
          logger.warn({ err, accountId }, 'could not read job events; the next notification or tick retries');
        }
      } while (account.readAgain && !closed);
      account.reading = null;
    })();
  }

  async function track(accountId: string): Promise<TrackedAccount> {
    const known = accounts.get(accountId);
    if (known) return known;
    let pending = tracking.get(accountId);
    if (!pending) {
      pending = (async () => {
        // Listen first, then read the counter: an event committed in between is both notified and after the cursor.
        await ensureListening();
        const { rows } = await sqlPool(prisma).query<{ last_sequence: string }>('SELECT last_sequence::text FROM account_event_sequences WHERE account_id = $1', [accountId]);
        const account: TrackedAccount = { cursor: BigInt(rows[0]?.last_sequence ?? 0), listeners: new Set(), reading: null, readAgain: false };
        accounts.set(accountId, account);
        return account;
      })().finally(() => tracking.delete(accountId));
      tracking.set(accountId, pending);
    }
    return pending;
  }

  return {
    async subscribe(accountId, listener) {
      if (closed) throw new Error('The job event hub is closed');
      const account = await track(accountId);
      account.listeners.add(listener);
      tick ??= setInterval(readAll, SAFETY_TICK_MS).unref();
      return {
        watermark: account.cursor,
        close() {
          account.listeners.delete(listener);
          if (account.listeners.size === 0 && accounts.get(accountId) === account) accounts.delete(accountId);
        },
      };
    },

    async watchBatch(batchId, listener) {
      if (closed) throw new Error('The job event hub is closed');
      await ensureListening();
      let listeners = batches.get(batchId);
      if (!listeners) batches.set(batchId, (listeners = new Set()));
      listeners.add(listener);
      return {
        close() {
          listeners.delete(listener);
          if (listeners.size === 0 && batches.get(batchId) === listeners) batches.delete(batchId);
        },
      };
    },

    listenerCount() {
      let count = 0;
      for (const account of accounts.values()) count += account.listeners.size;
      for (const listeners of batches.values()) count += listeners.size;
      return count;
    },

    async close() {
      closed = true;
      if (tick) clearInterval(tick);
      for (const account of accounts.values()) for (const listener of account.listeners) listener(null);
      accounts.clear();
      for (const listeners of batches.values()) for (const listener of listeners) listener(null);
      batches.clear();
      await connecting?.catch(() => undefined);
      await client?.end().catch(() => undefined);
      client = null;
    },
  };
}
