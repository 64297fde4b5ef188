/** Tuning of the API process (src/lib/tuning.ts): read as `config.api.*`. */
import { z } from 'zod';
import { positiveInt, tuning } from '../lib/tuning';

export const API_TUNING = tuning({
  /**
   * How long an API process trusts an API key it looked up before reading it again: a revocation or a change of
   * scopes, discount or segments takes effect within this time; `0` reads on every request.
   */
  keyCacheTtlMs: z.number().int().min(0).default(2_000),
  openStreams: tuning({
    /** Event streams and `Prefer: wait` requests one API process holds open for one account (429 past it). */
    perAccount: positiveInt.default(100),
    /** Event streams held open through one job's signed `eventsUrl`, apart from the account's cap (429 past it). */
    perEventsUrl: positiveInt.default(5),
    /** Event streams and `Prefer: wait` requests one API process holds open in all (429 past it). */
    total: positiveInt.default(5_000),
  }),
  requestBodies: tuning({
    /** Client request bodies one API process reads at once, all accounts together (503 past it). */
    maxBufferedBytes: positiveInt.default(64 * 1024 * 1024),
    /** Client request bodies one account may have in reading at once on an API process (429 past it). */
    maxBufferedBytesPerAccount: positiveInt.default(8 * 1024 * 1024),
    /** Upstream callback bodies one API process reads at once, a budget apart from clients' (503 past it). */
    maxBufferedCallbackBytes: positiveInt.default(16 * 1024 * 1024),
    /** The longest a request body may take to arrive (408 `REQUEST_TIMEOUT` and the connection closed past it). */
    bodyTimeoutMs: positiveInt.default(10_000),
  }),
});
