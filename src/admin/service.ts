/** The operator API's feature: accounts, keys, credits, usage and the audit log, built once per API process. */
import type { PrismaClient } from '../db/prisma';
import type { LedgerQuery } from '../contracts/http/account';
import type { AuditQuery, UsageQuery } from '../contracts/http/admin';
import { listLedger } from '../accounts/ledger';
import type { Clock } from '../lib/clock';
import { createAdminAccounts } from './accounts';
import { listAudit } from './audit';
import { createAdminCredits } from './credits';
import { createAdminKeys } from './keys';
import { usageReport } from './usage';

export function createAdminService(deps: { prisma: PrismaClient; cursorSecret: string; clock: Clock }) {
  const { prisma, cursorSecret } = deps;
  const now = () => new Date(deps.clock.now());
  const accounts = createAdminAccounts({ prisma, cursorSecret, now });
  return {
    accounts,
    keys: createAdminKeys({ prisma, now }),
    credits: createAdminCredits({ prisma }),
    async ledger(accountId: string, query: LedgerQuery) {
      await accounts.get(accountId);
      return listLedger(prisma, cursorSecret, accountId, query);
    },
    usage: (query: UsageQuery) => usageReport(prisma, query, now()),
    audit: (query: AuditQuery) => listAudit(prisma, cursorSecret, query),
  };
}

export type AdminService = ReturnType<typeof createAdminService>;
