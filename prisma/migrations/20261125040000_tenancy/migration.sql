-- Operator API: suspended accounts, key labels, expiry and rotation, spend limits and their counters, signed
-- credits with an external reference, idempotent credit grants and the audit log.

-- AlterEnum
ALTER TYPE "ledger_kind" ADD VALUE 'adjustment';

-- AlterTable
ALTER TABLE "accounts"
  ADD COLUMN "suspended_at" TIMESTAMPTZ(3),
  ADD COLUMN "daily_limit_micro_cents" BIGINT,
  ADD COLUMN "monthly_limit_micro_cents" BIGINT,
  ADD COLUMN "spend_day" DATE,
  ADD COLUMN "spent_day_micro_cents" BIGINT NOT NULL DEFAULT 0,
  ADD COLUMN "spend_month" DATE,
  ADD COLUMN "spent_month_micro_cents" BIGINT NOT NULL DEFAULT 0;

-- AlterTable
ALTER TABLE "api_keys"
  ADD COLUMN "name" TEXT,
  ADD COLUMN "expires_at" TIMESTAMPTZ(3),
  ADD COLUMN "replaced_by" TEXT,
  ADD COLUMN "daily_limit_micro_cents" BIGINT,
  ADD COLUMN "monthly_limit_micro_cents" BIGINT,
  ADD COLUMN "spend_day" DATE,
  ADD COLUMN "spent_day_micro_cents" BIGINT NOT NULL DEFAULT 0,
  ADD COLUMN "spend_month" DATE,
  ADD COLUMN "spent_month_micro_cents" BIGINT NOT NULL DEFAULT 0;

-- AlterTable
ALTER TABLE "ledger_entries" ADD COLUMN "reference" TEXT;

-- CreateIndex
CREATE INDEX "ledger_entries_created_at_idx" ON "ledger_entries"("created_at");

-- CreateTable
CREATE TABLE "credit_grants" (
    "account_id" TEXT NOT NULL,
    "idempotency_key" TEXT NOT NULL,
    "request_hash" TEXT NOT NULL,
    "ledger_entry_id" BIGINT NOT NULL,
    "response" JSONB NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "credit_grants_pkey" PRIMARY KEY ("account_id","idempotency_key")
);

-- CreateTable
CREATE TABLE "audit_entries" (
    "id" BIGSERIAL NOT NULL,
    "actor_key_id" TEXT NOT NULL,
    "actor_account_id" TEXT NOT NULL,
    "action" TEXT NOT NULL,
    "target_type" TEXT NOT NULL,
    "target_id" TEXT NOT NULL,
    "before" JSONB,
    "after" JSONB,
    "request_id" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "audit_entries_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "audit_entries_created_at_id_idx" ON "audit_entries"("created_at" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "audit_entries_target_id_created_at_idx" ON "audit_entries"("target_id", "created_at" DESC);

-- The counters start at what the current UTC day and month have spent already (charges less refunds).
UPDATE "accounts" a SET
  "spend_day" = (now() AT TIME ZONE 'UTC')::date,
  "spent_day_micro_cents" = COALESCE((SELECT SUM(j.cost_micro_cents - j.refunded_micro_cents) FROM "jobs" j
    WHERE j.account_id = a.id AND j.created_at >= ((now() AT TIME ZONE 'UTC')::date)::timestamp AT TIME ZONE 'UTC'), 0),
  "spend_month" = date_trunc('month', now() AT TIME ZONE 'UTC')::date,
  "spent_month_micro_cents" = COALESCE((SELECT SUM(j.cost_micro_cents - j.refunded_micro_cents) FROM "jobs" j
    WHERE j.account_id = a.id AND j.created_at >= date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), 0);

UPDATE "api_keys" k SET
  "spend_day" = (now() AT TIME ZONE 'UTC')::date,
  "spent_day_micro_cents" = COALESCE((SELECT SUM(j.cost_micro_cents - j.refunded_micro_cents) FROM "jobs" j
    WHERE j.api_key_id = k.id AND j.created_at >= ((now() AT TIME ZONE 'UTC')::date)::timestamp AT TIME ZONE 'UTC'), 0),
  "spend_month" = date_trunc('month', now() AT TIME ZONE 'UTC')::date,
  "spent_month_micro_cents" = COALESCE((SELECT SUM(j.cost_micro_cents - j.refunded_micro_cents) FROM "jobs" j
    WHERE j.api_key_id = k.id AND j.created_at >= date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), 0);
