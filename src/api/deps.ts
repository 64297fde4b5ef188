import type { Client } from '@temporalio/client';
import type { Config } from '../config';
import type { KeyAuthenticator } from './auth';
import type { PrismaClient } from '../db/prisma';
import type { AdmissionGate } from '../jobs/admissionGate';
import type { JobEventHub } from '../jobs/events/hub';
import type { Logger } from '../logger';
import type { ApiMetrics } from './metrics';
import type { Storage } from '../storage/storage';
import type { OpenStreams } from './openStreams';
import type { ConsoleOptions } from './routes/console';

/** Everything the HTTP layer needs, created once per process and injected. */
export interface ApiDeps {
  config: Config;
  prisma: PrismaClient;
  temporal: Client;
  storage: Storage;
  logger: Logger;
  /** API keys, cached for api.keyCacheTtlMs. */
  keys: KeyAuthenticator;
  /** Live job events of this process (one LISTEN connection). */
  events: JobEventHub;
  /** This process's Prometheus metrics, served on GET /metrics. */
  metrics: ApiMetrics;
  /** Event streams and waiting requests held open, capped per account and in total. */
  openStreams: OpenStreams;
  /** Job admissions of this process: submits are shed while they fail or pile up. */
  admissions: AdmissionGate;
  /** The dev stack's console: from its sources, its sign-in form filled in; absent, the built console. */
  console?: ConsoleOptions;
}
