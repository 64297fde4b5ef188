import { Client } from '@temporalio/client';
import { closeTemporalConnection, connectTemporal } from '../lib/temporalConnection';
import { NativeConnection } from '@temporalio/worker';
import type { Config } from '../config';
import { TRACING_OFF, type Tracing } from '../observability/tracing';
import { createPrisma, type PrismaClient } from '../db/prisma';
import { createStorage, type Storage } from '../storage/storage';
import { temporalConnectionOptions } from '../temporal/connectionOptions';

/** How long a stopping worker lets its running activities finish (SIGTERM) before it cancels them to be retried elsewhere. */
export const SHUTDOWN_GRACE_TIME = '30 seconds';

/** What a worker process holds: one of each client, created at start and closed after the workers stop. */
export interface WorkerConnections {
  prisma: PrismaClient;
  storage: Storage;
  /** Polls task queues. */
  connection: NativeConnection;
  /** Signals workflows from activities (a provider job telling its workflow it started). */
  client: Client;
  close(): Promise<void>;
}

export async function openWorkerConnections(config: Config, tracing: Tracing = TRACING_OFF): Promise<WorkerConnections> {
  const prisma = createPrisma(config.database.url);
  const storage = createStorage(config.minio);
  await storage.ensureBuckets();
  const temporalOptions = temporalConnectionOptions(config.temporal);
  const connection = await NativeConnection.connect(temporalOptions);
  const clientConnection = await connectTemporal(temporalOptions);
  const client = new Client({ connection: clientConnection, namespace: config.temporal.namespace, interceptors: tracing.clientInterceptors });
  return {
    prisma,
    storage,
    connection,
    client,
    async close() {
      await connection.close();
      await closeTemporalConnection(clientConnection);
      await prisma.$disconnect();
    },
  };
}
