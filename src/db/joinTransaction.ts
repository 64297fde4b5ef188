/**
 * A client for code written against a whole PrismaClient that must run inside the caller's transaction: its queries
 * go to `tx`, and its own `$transaction` joins `tx` instead of opening a second one (PostgreSQL has no nested
 * transactions; a failure anywhere rolls back everything). Used where an operation and its audit entry must commit
 * together and the operation opens transactions of its own.
 */
import type { Prisma } from '@prisma/client';
import type { PrismaClient } from './prisma';

type Tx = Prisma.TransactionClient;

export function joinTransaction(tx: Tx): PrismaClient {
  async function $transaction(work: unknown): Promise<unknown> {
    if (typeof work === 'function') return (work as (client: Tx) => Promise<unknown>)(tx);
    // The batch form: its queries, built on `tx`, in order.
    const results: unknown[] = [];
    for (const query of work as Promise<unknown>[]) results.push(await query);
    return results;
  }
  return new Proxy(tx, {
    get: (target, property, receiver) => (property === '$transaction' ? $transaction : Reflect.get(target, property, receiver)),
  }) as unknown as PrismaClient;
}
