-- CreateEnum
CREATE TYPE "ledger_kind" AS ENUM ('charge', 'refund', 'topup');

-- CreateEnum
CREATE TYPE "job_status" AS ENUM ('pending', 'processing', 'completed', 'failed', 'cancelled');

-- CreateEnum
CREATE TYPE "upload_status" AS ENUM ('awaiting_upload', 'uploaded', 'expired');

-- CreateEnum
CREATE TYPE "visibility" AS ENUM ('public', 'segment', 'private');

-- CreateEnum
CREATE TYPE "version_status" AS ENUM ('active', 'deprecated', 'disabled', 'deleted');

-- CreateTable
CREATE TABLE "accounts" (
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "balance_micro_cents" BIGINT NOT NULL DEFAULT 0,
    "plan" TEXT NOT NULL DEFAULT 'standard',
    "max_concurrent_jobs" INTEGER NOT NULL DEFAULT 5,
    "segments" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "discount_percent" INTEGER NOT NULL DEFAULT 0,
    "allowed_models" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "webhook_secret" TEXT NOT NULL,
    "webhook_secret_previous" TEXT,
    "webhook_secret_rotated_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "accounts_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "api_keys" (
    "id" TEXT NOT NULL,
    "account_id" TEXT NOT NULL,
    "prefix" TEXT NOT NULL,
    "hash" TEXT NOT NULL,
    "scopes" TEXT[],
    "allowed_models" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "revoked_at" TIMESTAMPTZ(3),
    "last_used_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "api_keys_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ledger_entries" (
    "id" BIGSERIAL NOT NULL,
    "account_id" TEXT NOT NULL,
    "kind" "ledger_kind" NOT NULL,
    "amount_micro_cents" BIGINT NOT NULL,
    "balance_after_micro_cents" BIGINT NOT NULL,
    "job_id" TEXT,
    "note" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "ledger_entries_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "jobs" (
    "id" TEXT NOT NULL,
    "account_id" TEXT NOT NULL,
    "api_key_id" TEXT,
    "model_slug" TEXT NOT NULL,
    "model_id" TEXT NOT NULL,
    "version_id" TEXT NOT NULL,
    "provider_id" TEXT NOT NULL,
    "status" "job_status" NOT NULL DEFAULT 'pending',
    "progress" INTEGER NOT NULL DEFAULT 0,
    "input" JSONB NOT NULL,
    "webhook_url" TEXT,
    "cost_micro_cents" BIGINT NOT NULL,
    "refunded_micro_cents" BIGINT NOT NULL DEFAULT 0,
    "estimated_completion_time" TIMESTAMPTZ(3) NOT NULL,
    "request_id" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "started_at" TIMESTAMPTZ(3),
    "completed_at" TIMESTAMPTZ(3),
    "updated_at" TIMESTAMPTZ(3) NOT NULL,
    "error_code" TEXT,
    "error_message" TEXT,
    "outputs" JSONB NOT NULL DEFAULT '[]',

    CONSTRAINT "jobs_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "idempotency_records" (
    "account_id" TEXT NOT NULL,
    "key" TEXT NOT NULL,
    "request_hash" TEXT NOT NULL,
    "job_id" TEXT,
    "response_status" INTEGER,
    "response_body" JSONB,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "idempotency_records_pkey" PRIMARY KEY ("account_id","key")
);

-- CreateTable
CREATE TABLE "rate_limit_counters" (
    "account_id" TEXT NOT NULL,
    "scope" TEXT NOT NULL,
    "window_start" TIMESTAMPTZ(3) NOT NULL,
    "count" INTEGER NOT NULL DEFAULT 0,

    CONSTRAINT "rate_limit_counters_pkey" PRIMARY KEY ("account_id","scope","window_start")
);

-- CreateTable
CREATE TABLE "webhook_events" (
    "id" TEXT NOT NULL,
    "job_id" TEXT NOT NULL,
    "account_id" TEXT NOT NULL,
    "type" TEXT NOT NULL,
    "url" TEXT NOT NULL,
    "payload" JSONB NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'pending',
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "delivered_at" TIMESTAMPTZ(3),

    CONSTRAINT "webhook_events_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "webhook_attempts" (
    "id" BIGSERIAL NOT NULL,
    "event_id" TEXT NOT NULL,
    "job_id" TEXT NOT NULL,
    "attempt" INTEGER NOT NULL,
    "attempted_at" TIMESTAMPTZ(3) NOT NULL,
    "status_code" INTEGER,
    "error" TEXT,
    "duration_ms" INTEGER NOT NULL,
    "redelivery" BOOLEAN NOT NULL DEFAULT false,

    CONSTRAINT "webhook_attempts_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "uploads" (
    "id" TEXT NOT NULL,
    "account_id" TEXT NOT NULL,
    "filename" TEXT NOT NULL,
    "content_type" TEXT NOT NULL,
    "object_key" TEXT NOT NULL,
    "max_size_bytes" INTEGER NOT NULL,
    "status" "upload_status" NOT NULL DEFAULT 'awaiting_upload',
    "size_bytes" BIGINT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "uploaded_at" TIMESTAMPTZ(3),
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "expired_at" TIMESTAMPTZ(3),

    CONSTRAINT "uploads_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "providers" (
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "description" TEXT NOT NULL,
    "logo_url" TEXT NOT NULL,
    "website" TEXT NOT NULL,
    "color" TEXT NOT NULL,
    "is_active" BOOLEAN NOT NULL DEFAULT true,
    "adapter" TEXT NOT NULL DEFAULT 'local',

    CONSTRAINT "providers_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "categories" (
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "description" TEXT NOT NULL,
    "order" INTEGER NOT NULL DEFAULT 0,

    CONSTRAINT "categories_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "capability_groups" (
    "id" TEXT NOT NULL,
    "display_name" TEXT NOT NULL,
    "label" TEXT NOT NULL,
    "icon" TEXT NOT NULL,
    "color" TEXT NOT NULL,
    "order" INTEGER NOT NULL,

    CONSTRAINT "capability_groups_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "models" (
    "id" TEXT NOT NULL,
    "slug" TEXT NOT NULL,
    "provider_id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "description" TEXT NOT NULL,
    "category_id" TEXT NOT NULL,
    "capability_id" TEXT NOT NULL,
    "visibility" "visibility" NOT NULL DEFAULT 'public',
    "segments" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "tags" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "rating_average" DOUBLE PRECISION NOT NULL DEFAULT 0,
    "rating_count" INTEGER NOT NULL DEFAULT 0,
    "sort_order" INTEGER NOT NULL DEFAULT 0,

    CONSTRAINT "models_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "model_versions" (
    "model_id" TEXT NOT NULL,
    "version_id" TEXT NOT NULL,
    "status" "version_status" NOT NULL,
    "input_schema" JSONB NOT NULL,
    "output_schema" JSONB NOT NULL,
    "pricing" JSONB NOT NULL,
    "requests_per_minute" INTEGER NOT NULL,
    "requests_per_day" INTEGER NOT NULL,
    "processing_seconds" INTEGER NOT NULL,
    "released_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "model_versions_pkey" PRIMARY KEY ("model_id","version_id")
);

-- CreateTable
CREATE TABLE "catalog_revision" (
    "id" INTEGER NOT NULL DEFAULT 1,
    "revision" INTEGER NOT NULL DEFAULT 0,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "catalog_revision_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "api_keys_hash_key" ON "api_keys"("hash");

-- CreateIndex
CREATE INDEX "api_keys_account_id_idx" ON "api_keys"("account_id");

-- CreateIndex
CREATE INDEX "ledger_entries_account_id_created_at_idx" ON "ledger_entries"("account_id", "created_at");

-- CreateIndex
CREATE UNIQUE INDEX "ledger_entries_job_id_kind_key" ON "ledger_entries"("job_id", "kind");

-- CreateIndex
CREATE INDEX "jobs_account_id_created_at_id_idx" ON "jobs"("account_id", "created_at" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "jobs_account_id_status_created_at_id_idx" ON "jobs"("account_id", "status", "created_at" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "jobs_account_id_model_slug_created_at_id_idx" ON "jobs"("account_id", "model_slug", "created_at" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "idempotency_records_expires_at_idx" ON "idempotency_records"("expires_at");

-- CreateIndex
CREATE INDEX "rate_limit_counters_window_start_idx" ON "rate_limit_counters"("window_start");

-- CreateIndex
CREATE UNIQUE INDEX "webhook_events_job_id_type_key" ON "webhook_events"("job_id", "type");

-- CreateIndex
CREATE INDEX "webhook_attempts_job_id_attempted_at_idx" ON "webhook_attempts"("job_id", "attempted_at");

-- CreateIndex
CREATE UNIQUE INDEX "uploads_object_key_key" ON "uploads"("object_key");

-- CreateIndex
CREATE INDEX "uploads_account_id_created_at_idx" ON "uploads"("account_id", "created_at");

-- CreateIndex
CREATE UNIQUE INDEX "models_slug_key" ON "models"("slug");

-- CreateIndex
CREATE INDEX "models_provider_id_idx" ON "models"("provider_id");

-- AddForeignKey
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ledger_entries" ADD CONSTRAINT "ledger_entries_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "jobs" ADD CONSTRAINT "jobs_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "webhook_attempts" ADD CONSTRAINT "webhook_attempts_event_id_fkey" FOREIGN KEY ("event_id") REFERENCES "webhook_events"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "uploads" ADD CONSTRAINT "uploads_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "models" ADD CONSTRAINT "models_provider_id_fkey" FOREIGN KEY ("provider_id") REFERENCES "providers"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "models" ADD CONSTRAINT "models_category_id_fkey" FOREIGN KEY ("category_id") REFERENCES "categories"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "models" ADD CONSTRAINT "models_capability_id_fkey" FOREIGN KEY ("capability_id") REFERENCES "capability_groups"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "model_versions" ADD CONSTRAINT "model_versions_model_id_fkey" FOREIGN KEY ("model_id") REFERENCES "models"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Money invariants, enforced by the database whatever the code does. Triggers rather than CHECK
-- constraints, which the JS schema engine cannot introspect. The function bodies spell semicolons as \073
-- because the engine splits migration scripts at every semicolon.
CREATE FUNCTION "enforce_account_balance_non_negative"() RETURNS trigger AS E'
BEGIN
  IF NEW."balance_micro_cents" < 0 THEN
    RAISE EXCEPTION ''account % balance would become negative'', NEW."id" USING ERRCODE = ''check_violation''\073
  END IF\073
  RETURN NEW\073
END\073
' LANGUAGE plpgsql;

CREATE TRIGGER "accounts_balance_non_negative" BEFORE INSERT OR UPDATE OF "balance_micro_cents" ON "accounts"
  FOR EACH ROW EXECUTE FUNCTION "enforce_account_balance_non_negative"();

CREATE FUNCTION "enforce_job_refund_within_cost"() RETURNS trigger AS E'
BEGIN
  IF NEW."refunded_micro_cents" < 0 OR NEW."refunded_micro_cents" > NEW."cost_micro_cents" THEN
    RAISE EXCEPTION ''job % refund must be between 0 and its cost'', NEW."id" USING ERRCODE = ''check_violation''\073
  END IF\073
  RETURN NEW\073
END\073
' LANGUAGE plpgsql;

CREATE TRIGGER "jobs_refund_within_cost" BEFORE INSERT OR UPDATE OF "refunded_micro_cents", "cost_micro_cents" ON "jobs"
  FOR EACH ROW EXECUTE FUNCTION "enforce_job_refund_within_cost"();
