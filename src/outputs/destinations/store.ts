/**
 * account_destinations: one destination per account, its secret sealed by the SecretBox. Every change is written to
 * the audit log in the change's own transaction: the key that made it, the destination before and after (never the
 * secret).
 */
import { recordAudit, type Actor } from '../../audit/log';
import { sqlPool, type PrismaClient } from '../../db/prisma';
import type { SecretBox } from './secretBox';
import type { DestinationSettings } from './settings';

export interface StoredDestination extends Omit<DestinationSettings, 'secretAccessKey'> {
  configuredAt: Date;
}

export interface DestinationStore {
  /** The destination without its secret, or null. */
  find(accountId: string): Promise<StoredDestination | null>;
  /** Whether the account has a destination (asked at every job's completion). */
  exists(accountId: string): Promise<boolean>;
  /** The destination with its secret opened, or null; throws when the secret was sealed under another key. */
  open(accountId: string): Promise<(StoredDestination & { secretAccessKey: string }) | null>;
  /** Saves (replacing any earlier one) and audits `destination.set` by `actor`. */
  save(accountId: string, settings: DestinationSettings, configuredAt: Date, actor: Actor): Promise<StoredDestination>;
  /** Whether there was one to remove; a removal is audited as `destination.remove` by `actor`, nothing removed is not. */
  remove(accountId: string, actor: Actor): Promise<boolean>;
}

const WITHOUT_SECRET = { endpoint: true, region: true, bucket: true, prefix: true, accessKeyId: true, configuredAt: true } as const;

/** What the audit log keeps of a destination: all but its secret. */
function audited(stored: StoredDestination | null) {
  return stored && { ...stored, configuredAt: stored.configuredAt.toISOString() };
}

export function createDestinationStore(prisma: PrismaClient, box: SecretBox | undefined): DestinationStore {
  return {
    find: (accountId) => prisma.accountDestination.findUnique({ where: { accountId }, select: WITHOUT_SECRET }),
    // node-postgres directly: every completion asks, and Prisma compiling the query costs more than the answer.
    exists: async (accountId) => (await sqlPool(prisma).query('SELECT 1 FROM account_destinations WHERE account_id = $1', [accountId])).rowCount! > 0,
    async open(accountId) {
      const row = await prisma.accountDestination.findUnique({ where: { accountId } });
      if (!row) return null;
      if (!box) throw new Error('DESTINATION_SECRET_KEY is not set: the destination secret cannot be opened');
      if (row.secretKeyId !== box.keyId) {
        throw new Error(`the destination secret was sealed under another DESTINATION_SECRET_KEY (key id ${row.secretKeyId}, this one is ${box.keyId})`);
      }
      const { endpoint, region, bucket, prefix, accessKeyId, configuredAt } = row;
      return { endpoint, region, bucket, prefix, accessKeyId, configuredAt, secretAccessKey: box.open(row.secretCiphertext, accountId) };
    },
    async save(accountId, settings, configuredAt, actor) {
      if (!box) throw new Error('DESTINATION_SECRET_KEY is not set: a destination secret cannot be stored');
      const { secretAccessKey, ...visible } = settings;
      const sealed = { secretCiphertext: new Uint8Array(box.seal(secretAccessKey, accountId)), secretKeyId: box.keyId };
      return prisma.$transaction(async (tx) => {
        const before = await tx.accountDestination.findUnique({ where: { accountId }, select: WITHOUT_SECRET });
        const after = await tx.accountDestination.upsert({
          where: { accountId },
          create: { accountId, ...visible, ...sealed, configuredAt },
          update: { ...visible, ...sealed, configuredAt },
          select: WITHOUT_SECRET,
        });
        await recordAudit(tx, actor, { action: 'destination.set', targetType: 'destination', targetId: accountId, before: audited(before), after: audited(after) });
        return after;
      });
    },
    async remove(accountId, actor) {
      return prisma.$transaction(async (tx) => {
        const before = await tx.accountDestination.findUnique({ where: { accountId }, select: WITHOUT_SECRET });
        const { count } = await tx.accountDestination.deleteMany({ where: { accountId } });
        if (count === 0) return false;
        await recordAudit(tx, actor, { action: 'destination.remove', targetType: 'destination', targetId: accountId, before: audited(before), after: null });
        return true;
      });
    },
  };
}
