import { z } from './zod';
import { SCOPES } from '../../shared/scopes';
import { SPEND_LIMITS } from '../../shared/spendLimitNames';
import { ListJobsQuerySchema, MAX_PAGE_SIZE } from './jobs';

/** The account overview reports spending per UTC day over this many days. */
export const SPEND_DAYS = 30;

const microCents = (description: string) => z.number().int().openapi({ description });

export const AccountKeySchema = z
  .object({
    keyId: z.string().openapi({ example: 'key_3kTMd9Qx0vLw7bYz' }),
    prefix: z.string().openapi({ description: 'The first characters of the key, to recognise it; the key itself is never shown again', example: 'gm_4fQ8zK1p' }),
    scopes: z.array(z.enum(SCOPES)),
    allowedModels: z.array(z.string()).openapi({ description: 'Model slugs this key may run; empty: every model the account can use' }),
    createdAt: z.string().openapi({ format: 'date-time' }),
  })
  .openapi('AccountKey');

export const SpendDaySchema = z
  .object({
    date: z.string().openapi({ format: 'date', description: 'A UTC calendar day', example: '2026-11-22' }),
    chargedMicroCents: microCents('Charged at submit that day (0 or more)'),
    refundedMicroCents: microCents('Refunded that day for failed and cancelled jobs (0 or more)'),
  })
  .openapi('SpendDay');

export const SpendLimitStateSchema = z
  .object({
    limit: z.enum(SPEND_LIMITS),
    limitMicroCents: microCents('The limit'),
    spentMicroCents: microCents('Charged in the period, less what was refunded of those charges'),
    remainingMicroCents: microCents('What may still be charged in the period (0 or more)'),
    resetsAt: z.string().openapi({ format: 'date-time', description: 'When the period ends and its spend counts from 0 again (UTC midnight, or the first of the next month)' }),
  })
  .openapi('SpendLimitState');

export const SpendLimitsSchema = z
  .object({
    dailyMicroCents: z.number().int().nullable().openapi({ description: 'Per UTC day; null: no limit' }),
    monthlyMicroCents: z.number().int().nullable().openapi({ description: 'Per UTC month; null: no limit' }),
    spentTodayMicroCents: microCents("Spent this UTC day (charges less their refunds), counted whether or not there is a limit"),
    spentThisMonthMicroCents: microCents('Spent this UTC month'),
    states: z.array(SpendLimitStateSchema).openapi({ description: 'One entry per limit that is set' }),
  })
  .openapi('SpendLimits');

const count = (description: string) => z.number().int().min(0).openapi({ description });

export const StoredUsageSchema = z
  .object({
    bytes: count('Bytes the account has in our storage now: `outputBytes` + `uploadBytes`'),
    objects: count('Objects the account has in our storage now: `outputObjects` + `uploadObjects`'),
    outputBytes: count('Bytes of the outputs of completed jobs not deleted yet (by retention or erasure)'),
    outputObjects: count('Outputs of completed jobs not deleted yet'),
    uploadBytes: count('Bytes of uploaded files not expired yet'),
    uploadObjects: count('Uploaded files not expired yet'),
  })
  .openapi('StoredUsage');

export const AccountSchema = z
  .object({
    accountId: z.string().openapi({ example: 'acc_3kTMd9Qx0vLw7bYz1aR5nC' }),
    name: z.string(),
    plan: z.string().openapi({ example: 'standard' }),
    segments: z.array(z.string()).openapi({ description: 'Catalog segments the account belongs to (they make `segment` models visible)' }),
    discountPercent: z.number().int().openapi({ description: 'Discount on every charge and estimate, 0-100' }),
    balanceMicroCents: microCents('Credits left, in micro-cents'),
    maxConcurrentJobs: z.number().int().openapi({ description: 'How many jobs may be `pending` or `processing` at once' }),
    outputRetentionSeconds: z.number().int().nullable().openapi({
      description: "How long the outputs of the account's jobs are kept after completion, in seconds (null: forever); a submit may ask for less (`retentionSeconds`)",
    }),
    concurrentJobs: z.number().int().openapi({ description: 'Jobs `pending` or `processing` now, counted as admission counts them' }),
    apiKey: AccountKeySchema.openapi({ description: 'The key of this request' }),
    createdAt: z.string().openapi({ format: 'date-time' }),
    spendLimits: z
      .object({ account: SpendLimitsSchema, key: SpendLimitsSchema.openapi({ description: "The limits of this request's key" }) })
      .openapi({ description: 'Spend limits of the account and of this key, with what is spent and left of each (BUDGET_EXCEEDED refuses a submit that would pass one)' }),
    spendPerDay: z.array(SpendDaySchema).openapi({
      description: `The last ${SPEND_DAYS} UTC days, oldest first, today last; every day is present, days without money moved show 0`,
    }),
    storage: StoredUsageSchema.openapi({ description: 'What the account has in our storage now: outputs not deleted and uploaded files not expired' }),
  })
  .openapi('Account');

export const LEDGER_KINDS = ['charge', 'refund', 'topup', 'adjustment'] as const;

export const LedgerEntrySchema = z
  .object({
    entryId: z.string().openapi({ description: 'Identifier of the entry (a decimal number as a string)', example: '4182' }),
    kind: z.enum(LEDGER_KINDS).openapi({ description: '`charge` (a job submitted), `refund` (a job failed or cancelled), `topup` (credits added), `adjustment` (credits an operator took back)' }),
    amountMicroCents: microCents('Signed change of the balance: negative for a charge, positive for a refund or top-up'),
    balanceAfterMicroCents: microCents('The balance right after this entry'),
    jobId: z.string().nullable().openapi({ description: 'The job charged or refunded; null for top-ups' }),
    createdAt: z.string().openapi({ format: 'date-time' }),
  })
  .openapi('LedgerEntry');

export const LedgerPageSchema = z
  .object({ entries: z.array(LedgerEntrySchema), nextCursor: z.string().nullable(), hasMore: z.boolean() })
  .openapi('LedgerPage');

// The paging parameters of GET /v1/jobs, so both listings take and refuse the same values.
export const ListLedgerQuerySchema = z.object({
  limit: ListJobsQuerySchema.shape.limit.openapi({ description: `Entries per page, 1-${MAX_PAGE_SIZE}` }),
  cursor: ListJobsQuerySchema.shape.cursor,
});

export type AccountView = z.infer<typeof AccountSchema>;
export type StoredUsageView = z.infer<typeof StoredUsageSchema>;
export type SpendDay = z.infer<typeof SpendDaySchema>;
export type SpendLimitsView = z.infer<typeof SpendLimitsSchema>;
export type LedgerEntryView = z.infer<typeof LedgerEntrySchema>;
export type LedgerPage = z.infer<typeof LedgerPageSchema>;
export type LedgerQuery = z.infer<typeof ListLedgerQuerySchema>;
