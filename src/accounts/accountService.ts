/** The account feature as a key holder sees it: the overview and the ledger, assembled once. */
import type { ApiKey } from '@prisma/client';
import type { PrismaClient } from '../db/prisma';
import { listLedger } from './ledger';
import { getAccountOverview, type AccountUsageReaders } from './overview';
import type { LedgerQuery } from '../contracts/http/account';

export function createAccountService(deps: { prisma: PrismaClient; cursorSecret: string; usage: AccountUsageReaders }) {
  return {
    overview: (apiKey: ApiKey) => getAccountOverview(deps.prisma, deps.usage, apiKey),
    ledger: (accountId: string, query: LedgerQuery) => listLedger(deps.prisma, deps.cursorSecret, accountId, query),
  };
}

export type AccountService = ReturnType<typeof createAccountService>;
