/**
 * The operator API under /v1/admin: accounts, their keys, credits, the usage report and the audit log. Every shape is
 * declared here once; the routes validate with them and the OpenAPI document (tag `Admin`) is generated from them.
 */
import { z } from './zod';
import { MANAGE_OUTPUTS_SCOPE, SCOPES } from '../../shared/scopes';
import { VERSION_STATUSES } from '../../shared/versionStatuses';
import { LedgerEntrySchema, ListLedgerQuerySchema, SpendLimitsSchema } from './account';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from './jobs';
import { MAX_OUTPUT_RETENTION_SECONDS } from '../../shared/retention';

/** The largest amount an operator may set or grant at once: $1,000,000 (exact as a JSON number). */
export const MAX_ADMIN_MICRO_CENTS = 1_000_000_000_000_000;
/** How long a rotated key keeps working beside its replacement, at most (7 days). */
export const MAX_ROTATION_OVERLAP_SECONDS = 7 * 24 * 3600;
export const DEFAULT_ROTATION_OVERLAP_SECONDS = 3600;

const microCents = (description: string) => z.number().int().openapi({ description });
const isoInstant = (description: string) => z.string().openapi({ format: 'date-time', description });

const limitAmount = z
  .number({ error: 'a spend limit is an integer amount of micro-cents, or null for no limit' })
  .int('a spend limit is an integer amount of micro-cents')
  .min(0)
  .max(MAX_ADMIN_MICRO_CENTS)
  .nullable();

export const SpendLimitsInputSchema = z
  .strictObject({
    dailyMicroCents: limitAmount.optional().openapi({ description: 'Per UTC day; null removes the limit' }),
    monthlyMicroCents: limitAmount.optional().openapi({ description: 'Per UTC month; null removes the limit' }),
  })
  .openapi('SpendLimitsInput', { description: 'Omitted fields are left as they are' });

const name = z.string({ error: 'name must be a string' }).trim().min(1, 'name must not be empty').max(200);
const slugList = z.array(z.string().min(1).max(200)).max(1000);
const segmentList = z.array(z.string().regex(/^[a-z0-9][a-z0-9_-]{0,63}$/, 'segments are lower-case letters, digits, - and _')).max(100);

export const AdminAccountSchema = z
  .object({
    accountId: z.string().openapi({ example: 'acc_3kTMd9Qx0vLw7bYz1aR5nC' }),
    name: z.string(),
    plan: z.string().openapi({ example: 'standard' }),
    balanceMicroCents: microCents('Credits left'),
    maxConcurrentJobs: z.number().int(),
    concurrentJobs: z.number().int().openapi({ description: 'Jobs `pending` or `processing` now' }),
    segments: z.array(z.string()),
    allowedModels: z.array(z.string()).openapi({ description: 'Private model slugs the account may see and use' }),
    discountPercent: z.number().int(),
    spendLimits: SpendLimitsSchema,
    outputRetentionSeconds: z.number().int().nullable().openapi({
      description: "How long the outputs of the account's jobs are kept after completion, in seconds (null: forever): the plan's default or the account's own",
    }),
    outputRetentionSource: z.enum(['plan', 'account']).openapi({
      description: '`plan`: the default of the account\'s plan (catalog/plans.json); `account`: set for this account with `outputRetentionSeconds`',
    }),
    suspended: z.boolean(),
    suspendedAt: z.string().nullable().openapi({ format: 'date-time' }),
    provenance: z
      .object({
        enabled: z.boolean().openapi({ description: "Content Credentials (C2PA) are signed into the account's outputs (docs/provenance.md); on by default" }),
        includePrompt: z.boolean().openapi({ description: "The prompt goes into the outputs' manifests; off by default (the prompt is the customer's)" }),
      })
      .openapi('AccountProvenance'),
    createdAt: isoInstant('When the account was created'),
    updatedAt: isoInstant('When the account last changed'),
  })
  .openapi('AdminAccount');

export const CreatedAccountSchema = AdminAccountSchema.extend({
  webhookSecret: z.string().openapi({ description: "The account's webhook signing secret, shown this once (rotate it to get a new one)" }),
}).openapi('CreatedAccount');

export const CreateAccountRequestSchema = z
  .strictObject({
    name,
    plan: z.string().min(1).max(64).optional().openapi({ description: 'One of the plans in catalog/plans.json (free, standard, business, enterprise as shipped); default `standard`' }),
    maxConcurrentJobs: z.number().int().min(0).max(100_000).optional().openapi({ description: 'Default 5' }),
    segments: segmentList.optional(),
    allowedModels: slugList.optional(),
    discountPercent: z.number().int().min(0).max(100).optional(),
    spendLimits: SpendLimitsInputSchema.optional(),
  })
  .openapi('CreateAccountRequest');

export const UpdateAccountRequestSchema = z
  .strictObject({
    name: name.optional(),
    plan: z.string().min(1).max(64).optional(),
    maxConcurrentJobs: z.number().int().min(0).max(100_000).optional(),
    segments: segmentList.optional(),
    allowedModels: slugList.optional(),
    discountPercent: z.number().int().min(0).max(100).optional(),
    spendLimits: SpendLimitsInputSchema.optional(),
    suspended: z.boolean().optional().openapi({ description: 'true refuses every key of the account (within 2 s); false lifts it' }),
    outputRetentionSeconds: z
      .number({ error: 'outputRetentionSeconds is a whole number of seconds, or null to keep outputs forever' })
      .int('outputRetentionSeconds is a whole number of seconds')
      .max(MAX_OUTPUT_RETENTION_SECONDS, `outputRetentionSeconds must be at most ${MAX_OUTPUT_RETENTION_SECONDS} (ten years); null keeps outputs forever`)
      .nullable()
      .optional()
      .openapi({
        description:
          "How long the outputs of the account's jobs are kept after completion, over the plan's default: seconds (one hour at least, " +
          'outputs.retentionMinSeconds), or null to keep them forever. Applies to jobs submitted from then on.',
      }),
    provenance: z
      .strictObject({
        enabled: z.boolean().optional().openapi({ description: 'false: outputs of jobs stored from then on carry no Content Credentials (audited)' }),
        includePrompt: z.boolean().optional().openapi({ description: "true: the prompt goes into the outputs' manifests, at the customer's request" }),
      })
      .optional(),
  })
  .refine((body) => Object.keys(body).length > 0, { message: 'name at least one field to change' })
  .openapi('UpdateAccountRequest');

export const ListAccountsQuerySchema = z.object({
  limit: z.coerce.number().int().min(1).max(MAX_PAGE_SIZE).default(DEFAULT_PAGE_SIZE).openapi({ description: `1-${MAX_PAGE_SIZE}` }),
  cursor: z.string().max(1000).optional(),
  search: z.string().trim().min(1).max(200).optional().openapi({ description: 'Part of the name, any case' }),
});

export const AccountPageSchema = z
  .object({ accounts: z.array(AdminAccountSchema), nextCursor: z.string().nullable(), hasMore: z.boolean() })
  .openapi('AdminAccountPage');

export const AccountIdParamsSchema = z.object({ accountId: z.string().min(1).max(100) });
export const KeyIdParamsSchema = z.object({ keyId: z.string().min(1).max(100) });

export const KEY_STATUSES = ['active', 'expired', 'revoked'] as const;

export const AdminKeySchema = z
  .object({
    keyId: z.string().openapi({ example: 'key_3kTMd9Qx0vLw7bYz' }),
    accountId: z.string(),
    name: z.string().nullable(),
    prefix: z.string().openapi({ description: 'The first characters of the key; the key itself is shown only when issued' }),
    scopes: z.array(z.enum(SCOPES)),
    allowedModels: z.array(z.string()).openapi({ description: 'Empty: every model the account can use' }),
    status: z.enum(KEY_STATUSES),
    expiresAt: z.string().nullable().openapi({ format: 'date-time' }),
    revokedAt: z.string().nullable().openapi({ format: 'date-time' }),
    replacedBy: z.string().nullable().openapi({ description: 'The key that replaced this one in a rotation' }),
    lastUsedAt: z.string().nullable().openapi({ format: 'date-time' }),
    spendLimits: SpendLimitsSchema,
    createdAt: isoInstant('When the key was issued'),
  })
  .openapi('AdminKey');

export const CreateKeyRequestSchema = z
  .strictObject({
    name: name.optional(),
    scopes: z.array(z.enum(SCOPES, { error: `scopes are ${SCOPES.join(', ')}` })).min(1, 'a key needs at least one scope'),
    allowedModels: slugList.optional(),
    expiresAt: z.iso.datetime({ offset: true, error: 'expiresAt must be an ISO 8601 instant' }).optional(),
    spendLimits: SpendLimitsInputSchema.optional(),
  })
  // The destination takes the outputs of every model: a key limited to some may not choose it.
  .refine((body) => !(body.scopes.includes(MANAGE_OUTPUTS_SCOPE) && (body.allowedModels?.length ?? 0) > 0), {
    path: ['scopes'],
    message: `a key limited to some models (allowedModels) cannot have the ${MANAGE_OUTPUTS_SCOPE} scope: issue a separate key for it`,
  })
  .openapi('CreateKeyRequest');

export const IssuedKeySchema = z
  .object({
    key: AdminKeySchema,
    apiKey: z.string().openapi({ description: 'The secret key: shown this once, only its hash is kept', example: 'gm_4fQ8zK1p...' }),
  })
  .openapi('IssuedKey');

export const KeyListSchema = z.object({ keys: z.array(AdminKeySchema) }).openapi('AdminKeyList');

export const RotateKeyRequestSchema = z
  .strictObject({
    overlapSeconds: z
      .number()
      .int()
      .min(0)
      .max(MAX_ROTATION_OVERLAP_SECONDS)
      .default(DEFAULT_ROTATION_OVERLAP_SECONDS)
      .openapi({ description: `How long the old key keeps working beside the new one, 0-${MAX_ROTATION_OVERLAP_SECONDS} s (default ${DEFAULT_ROTATION_OVERLAP_SECONDS})` }),
  })
  .openapi('RotateKeyRequest');

export const RotatedKeySchema = z
  .object({
    key: AdminKeySchema.openapi({ description: 'The new key' }),
    apiKey: z.string().openapi({ description: 'The new secret, shown this once' }),
    previous: AdminKeySchema.openapi({ description: 'The old key, which expires at the end of the overlap' }),
  })
  .openapi('RotatedKey');

export const GrantCreditsRequestSchema = z
  .strictObject({
    amountMicroCents: z
      .number({ error: 'amountMicroCents must be an integer' })
      .int('amountMicroCents must be an integer')
      .min(-MAX_ADMIN_MICRO_CENTS)
      .max(MAX_ADMIN_MICRO_CENTS)
      .refine((amount) => amount !== 0, 'amountMicroCents must not be 0')
      .openapi({ description: 'Positive adds credits (a `topup` entry); negative takes them back (an `adjustment`), never below 0' }),
    reason: z.string({ error: 'reason is required' }).trim().min(1, 'reason must not be empty').max(500),
    reference: z.string().trim().min(1).max(200).optional().openapi({ description: 'Your external reference, e.g. the payment id', example: 'pi_3PqX2k' }),
  })
  .openapi('GrantCreditsRequest');

export const CreditGrantSchema = z
  .object({
    accountId: z.string(),
    entry: LedgerEntrySchema.extend({
      reason: z.string().nullable(),
      reference: z.string().nullable(),
    }),
    balanceMicroCents: microCents('The balance after the grant'),
  })
  .openapi('CreditGrant');

export const USAGE_GROUPS = ['day', 'account', 'key', 'model', 'provider'] as const;
export type UsageGroup = (typeof USAGE_GROUPS)[number];
/** The longest range one report covers. */
export const MAX_USAGE_RANGE_DAYS = 366;

const instantParam = (what: string) =>
  z.iso.datetime({ offset: true, error: `${what} must be an ISO 8601 instant` }).optional();

export const UsageQuerySchema = z.object({
  from: instantParam('from').openapi({ description: 'Start of the range, inclusive; default 30 days before `to`' }),
  to: instantParam('to').openapi({ description: 'End of the range, exclusive; default now' }),
  groupBy: z
    .string()
    .optional()
    .openapi({ description: `Comma-separated, any of ${USAGE_GROUPS.join(', ')}; omitted: one row of totals`, example: 'day,model' }),
  accountId: z.string().min(1).max(100).optional().openapi({ description: 'Only this account' }),
  format: z.enum(['json', 'csv']).default('json'),
});

export const UsageRowSchema = z
  .object({
    day: z.string().optional().openapi({ format: 'date', description: 'UTC day of the ledger entries' }),
    accountId: z.string().optional(),
    keyId: z.string().nullable().optional(),
    model: z.string().optional(),
    providerId: z.string().optional(),
    chargedMicroCents: microCents('Charged at submit'),
    refundedMicroCents: microCents('Refunded for failed and cancelled jobs'),
    netMicroCents: microCents('Charged less refunded'),
    jobs: z.number().int().openapi({ description: 'Jobs charged' }),
    refundedJobs: z.number().int().openapi({ description: 'Jobs refunded' }),
    storedBytes: z
      .number()
      .int()
      .optional()
      .openapi({
        description:
          'Bytes in our storage now (outputs not deleted and uploaded files not expired), measured when the report is made, not over the range; on rows only when grouped by `account` alone',
      }),
    storedObjects: z.number().int().optional().openapi({ description: 'Objects in our storage now, as `storedBytes`' }),
  })
  .openapi('UsageRow');

export const UsageReportSchema = z
  .object({
    from: isoInstant('Start, inclusive'),
    to: isoInstant('End, exclusive'),
    groupBy: z.array(z.enum(USAGE_GROUPS)),
    rows: z.array(UsageRowSchema),
    totals: UsageRowSchema.pick({ chargedMicroCents: true, refundedMicroCents: true, netMicroCents: true, jobs: true, refundedJobs: true }).extend({
      storedBytes: z.number().int().openapi({ description: 'Bytes in our storage now, of every account (or of `accountId`)' }),
      storedObjects: z.number().int().openapi({ description: 'Objects in our storage now, of every account (or of `accountId`)' }),
    }),
  })
  .openapi('UsageReport');

export const AuditEntrySchema = z
  .object({
    entryId: z.string().openapi({ description: 'A decimal number as a string' }),
    actorKeyId: z.string().openapi({ description: "The key that made the change: an admin key, or for `destination.*` the account's own `manage_outputs` key" }),
    actorAccountId: z.string(),
    action: z.string().openapi({ example: 'account.update' }),
    targetType: z.enum(['account', 'key', 'model', 'destination']).openapi({
      description: "`destination`: the account's destination bucket (`destination.set`, `destination.remove`), its targetId the account's id; its before and after never hold the secret",
    }),
    targetId: z.string(),
    before: z.unknown().nullable().openapi({ description: 'The target before the change; null when it was created' }),
    after: z.unknown().nullable().openapi({ description: 'The target after the change' }),
    requestId: z.string().nullable().openapi({ description: "The server's own id of the request that made the change (`req_…`)" }),
    clientRequestId: z
      .string()
      .nullable()
      .openapi({ description: 'The `X-Request-Id` the client sent with that request, when it sent one (its own label, as the answer echoed it); null otherwise' }),
    createdAt: isoInstant('When the change was made'),
  })
  .openapi('AuditEntry');

export const AuditQuerySchema = z.object({
  limit: ListLedgerQuerySchema.shape.limit,
  cursor: ListLedgerQuerySchema.shape.cursor,
  targetId: z.string().min(1).max(200).optional().openapi({ description: 'Only changes of this account, key or model (its slug)' }),
});

export const AuditPageSchema = z
  .object({ entries: z.array(AuditEntrySchema), nextCursor: z.string().nullable(), hasMore: z.boolean() })
  .openapi('AuditPage');

export const AccountErasureSchema = z
  .object({
    accountId: z.string(),
    status: z.enum(['running', 'completed']).openapi({ description: '`completed` once every job is erased, the keys revoked and the account suspended' }),
    requestedAt: z.string().openapi({ format: 'date-time' }),
    completedAt: z.string().nullable().openapi({ format: 'date-time' }),
    jobs: z
      .object({ total: z.number().int(), erased: z.number().int(), remaining: z.number().int() })
      .openapi({ description: "The account's jobs, those whose content is erased and those left (jobs still running are erased once they end)" }),
    activeKeys: z.number().int().openapi({ description: 'Keys not revoked yet (0 once the account is closed)' }),
  })
  .openapi('AccountErasure');

export type AccountErasureView = z.infer<typeof AccountErasureSchema>;
export type AdminAccount = z.infer<typeof AdminAccountSchema>;
export type CreatedAccount = z.infer<typeof CreatedAccountSchema>;
export type AdminKey = z.infer<typeof AdminKeySchema>;
export type SpendLimitsInput = z.infer<typeof SpendLimitsInputSchema>;
export type CreateAccountRequest = z.infer<typeof CreateAccountRequestSchema>;
export type UpdateAccountRequest = z.infer<typeof UpdateAccountRequestSchema>;
export type ListAccountsQuery = z.infer<typeof ListAccountsQuerySchema>;
export type CreateKeyRequest = z.infer<typeof CreateKeyRequestSchema>;
export type GrantCreditsRequest = z.infer<typeof GrantCreditsRequestSchema>;
export type CreditGrant = z.infer<typeof CreditGrantSchema>;
export type UsageQuery = z.infer<typeof UsageQuerySchema>;
export type UsageRow = z.infer<typeof UsageRowSchema>;
export type UsageReport = z.infer<typeof UsageReportSchema>;
export type AuditEntryView = z.infer<typeof AuditEntrySchema>;
export type AuditQuery = z.infer<typeof AuditQuerySchema>;

export const WebhookSecretRotationSchema = z
  .object({
    accountId: z.string(),
    webhookSecret: z.string().openapi({ description: 'The new signing secret, shown this once; the previous one keeps signing during the rotation window' }),
    rotatedAt: isoInstant('When the secret was replaced'),
  })
  .openapi('WebhookSecretRotation');

export const JobIdParamsSchema = z.object({ jobId: z.string().min(1).max(100) });

export const AdminJobSchema = z
  .object({
    jobId: z.string(),
    accountId: z.string(),
    status: z.string(),
    progress: z.number().int(),
    model: z.string(),
    version: z.string(),
    providerId: z.string(),
    createdAt: isoInstant('When the job was submitted'),
    startedAt: z.string().nullable().openapi({ format: 'date-time' }),
    completedAt: z.string().nullable().openapi({ format: 'date-time' }),
    costMicroCents: microCents('Charged'),
    refundedMicroCents: microCents('Refunded'),
    error: z.object({ code: z.string(), message: z.string() }).nullable(),
    upstream: z.object({
      id: z.string().nullable().openapi({ description: "The upstream's generation id; null with `submittedAt` set: the answer was lost" }),
      submittedAt: z.string().nullable().openapi({ format: 'date-time' }),
      stage: z.string().nullable(),
      queuePosition: z.number().int().nullable(),
      costMicroCents: z.number().int().nullable().openapi({ description: 'What the upstream reported the generation cost us' }),
    }),
    input: z.unknown(),
    outputs: z.array(
      z.object({ key: z.string(), contentType: z.string(), sizeBytes: z.number(), width: z.number().optional(), height: z.number().optional(), durationSeconds: z.number().optional() }),
    ),
    ledger: z.array(z.object({ kind: z.string(), amountMicroCents: z.number().int(), createdAt: z.string() })),
    workflowUrl: z.string().openapi({ description: "The job's workflow in the Temporal UI: summary, activities and history" }),
  })
  .openapi('AdminJob');

export const MarginsQuerySchema = z.object({
  since: z.iso.datetime({ offset: true, error: 'since must be an ISO 8601 instant' }).optional().openapi({ description: 'Only jobs created at or after this instant' }),
});

export const ProviderMarginSchema = z
  .object({
    providerId: z.string(),
    jobs: z.number().int(),
    completedJobs: z.number().int(),
    revenueMicroCents: microCents('Charges less refunds'),
    upstreamCostMicroCents: microCents('What the upstreams reported, over the jobs that reported it'),
    jobsWithCost: z.number().int(),
    marginMicroCents: z.number().int().nullable().openapi({ description: 'Revenue less cost over the jobs whose cost is known; null when none is' }),
    marginPercent: z.number().nullable(),
  })
  .openapi('ProviderMargin');

export const MarginsSchema = z.object({ since: z.string().nullable(), providers: z.array(ProviderMarginSchema) }).openapi('Margins');

export const VersionStatusRequestSchema = z
  .strictObject({
    model: z.string().min(1).max(200).openapi({ description: 'The model slug', example: 'pixelforge/forge-pro/text-to-image' }),
    versionId: z.string().min(1).max(100),
    status: z.enum(VERSION_STATUSES),
  })
  .openapi('VersionStatusRequest');

export const VersionStatusChangeSchema = z
  .object({
    slug: z.string(),
    versionId: z.string(),
    previousStatus: z.enum(VERSION_STATUSES),
    status: z.enum(VERSION_STATUSES),
    revision: z.number().int().openapi({ description: 'The catalog revision after the change (cached listings are dropped)' }),
  })
  .openapi('VersionStatusChange');

export type AdminJob = z.infer<typeof AdminJobSchema>;
export type ProviderMargin = z.infer<typeof ProviderMarginSchema>;
export type VersionStatusChange = z.infer<typeof VersionStatusChangeSchema>;

export const ImportCogRequestSchema = z
  .strictObject({
    url: z.url({ protocol: /^https?$/, error: 'url must be the http(s) address of a Cog server' }).openapi({ example: 'http://gpu-1.lan:5000' }),
    slug: z.string().regex(/^[a-z0-9][a-z0-9-]*\/[a-z0-9][a-z0-9.-]*\/[a-z0-9-]+$/, 'slug is <maker>/<model>/<capability>').openapi({ example: 'mygpus/flux-schnell/text-to-image' }),
    priceMicroCents: z.number().int().min(0).max(MAX_ADMIN_MICRO_CENTS).openapi({ description: 'What one generation costs the client' }),
    slots: z.number().int().min(1).max(1000).default(1).openapi({ description: "Predictions the server runs at once (its COG_MAX_CONCURRENCY)" }),
    schema: z.record(z.string(), z.unknown()).optional().openapi({ description: "The server's OpenAPI document or Input schema, for a server that serves none" }),
    name: z.string().min(1).max(200).optional(),
    description: z.string().max(2000).optional(),
    versionId: z.string().regex(/^[A-Za-z0-9._-]{1,50}$/).default('v1'),
    processingSeconds: z.number().int().min(1).max(86_400).default(30).openapi({ description: 'Typical time of one generation (the ETA)' }),
    visibility: z.enum(['public', 'segment', 'private']).default('public'),
    segments: segmentList.optional(),
  })
  .openapi('ImportCogRequest');

export const CogImportSchema = z
  .object({
    slug: z.string(),
    versionId: z.string(),
    providerId: z.string(),
    serverUrl: z.string(),
    slots: z.number().int(),
    fields: z.array(z.string()).openapi({ description: "The model's input fields, from the server's schema" }),
    priceMicroCents: z.number().int(),
    revision: z.number().int(),
  })
  .openapi('CogImport');

export type ImportCogRequest = z.infer<typeof ImportCogRequestSchema>;
export type CogImport = z.infer<typeof CogImportSchema>;
