/**
 * Driver adapter for the Prisma CLI (migrate, diff, generate) on the JS schema engine.
 * Works around defects of @prisma/adapter-pg 6.19.3 when used by migrate:
 *  - catalog columns of type `name`/`char` are rejected as unsupported: they are relabelled as text;
 *  - a `connectionString` would override the shadow database name: the URL is split into fields;
 *  - the shadow database is dropped before its pool is closed: the pool is closed first;
 *  - a migration script is split at every `;`, even inside a dollar-quoted function body: it is sent whole instead
 *    (one simple query, so PostgreSQL also runs it as one transaction).
 */
import pg from 'pg';
import { PrismaPg } from '@prisma/adapter-pg';

const PG_TEXT = 25;
const PG_TEXT_ARRAY = 1009;
const RELABELLED_TYPES: Record<number, number> = {
  18: PG_TEXT, // "char"
  19: PG_TEXT, // name
  1002: PG_TEXT_ARRAY, // "char"[]
  1003: PG_TEXT_ARRAY, // name[]
};

function relabel<T>(result: T): T {
  const fields = (result as { fields?: { dataTypeID: number }[] } | undefined)?.fields;
  for (const field of fields ?? []) {
    const replacement = RELABELLED_TYPES[field.dataTypeID];
    if (replacement !== undefined) field.dataTypeID = replacement;
  }
  return result;
}

class RelabellingClient extends pg.Client {
  // pg.Client.query has many overloads; both the callback and the promise form are used.
  override query(...args: any[]): any {
    const callbackIndex = args.findIndex((a) => typeof a === 'function');
    if (callbackIndex >= 0) {
      const callback = args[callbackIndex];
      args[callbackIndex] = (err: unknown, res: unknown) => callback(err, err ? res : relabel(res));
      return (super.query as any)(...args);
    }
    const out = (super.query as any)(...args);
    return out && typeof out.then === 'function' ? out.then(relabel) : out;
  }
}

function poolConfig(databaseUrl: string, database?: string): pg.PoolConfig {
  const url = new URL(databaseUrl);
  return {
    host: url.hostname,
    port: Number(url.port || 5432),
    user: decodeURIComponent(url.username),
    password: decodeURIComponent(url.password),
    database: database ?? url.pathname.replace(/^\//, ''),
    max: 4,
    // The CLI never closes the adapter's pool; idle connections must not keep the process alive.
    allowExitOnIdle: true,
    Client: RelabellingClient as unknown as typeof pg.Client,
  };
}

type ConnectedAdapter = Awaited<ReturnType<PrismaPg['connect']>>;

function sendingScriptsWhole(adapter: ConnectedAdapter): ConnectedAdapter {
  const internals = adapter as unknown as { client: pg.Pool; onError(error: unknown): never };
  adapter.executeScript = async (script: string) => {
    try {
      await internals.client.query(script);
    } catch (error) {
      internals.onError(error);
    }
  };
  return adapter;
}

export function createMigrateAdapter(databaseUrl: string) {
  const factory = new PrismaPg(poolConfig(databaseUrl));
  return {
    provider: factory.provider,
    adapterName: factory.adapterName,
    connect: async () => sendingScriptsWhole(await factory.connect()),
    async connectToShadowDb() {
      const admin = await factory.connect();
      const database = `prisma_shadow_${globalThis.crypto.randomUUID().replace(/-/g, '')}`;
      await admin.executeScript(`CREATE DATABASE "${database}"`);
      const shadow = sendingScriptsWhole(await new PrismaPg(poolConfig(databaseUrl, database)).connect());
      const dispose = shadow.dispose.bind(shadow);
      shadow.dispose = async () => {
        await dispose();
        await admin.executeScript(`DROP DATABASE IF EXISTS "${database}"`);
        await admin.dispose();
      };
      return shadow;
    },
  };
}
