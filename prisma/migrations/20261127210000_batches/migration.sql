-- CreateEnum
CREATE TYPE "BatchStatus" AS ENUM ('running', 'cancelling', 'completed', 'cancelled', 'expired');

-- CreateEnum
CREATE TYPE "BatchItemStatus" AS ENUM ('queued', 'running', 'completed', 'failed', 'cancelled', 'skipped', 'expired');

-- AlterTable
ALTER TABLE "jobs" ADD COLUMN     "batch_id" TEXT,
ADD COLUMN     "custom_id" TEXT;

-- CreateTable
CREATE TABLE "batches" (
    "id" TEXT NOT NULL,
    "account_id" TEXT NOT NULL,
    "api_key_id" TEXT,
    "status" "BatchStatus" NOT NULL DEFAULT 'running',
    "source" TEXT NOT NULL,
    "upload_id" TEXT,
    "item_count" INTEGER NOT NULL,
    "rejected_count" INTEGER NOT NULL DEFAULT 0,
    "rejected_lines" JSONB NOT NULL DEFAULT '[]',
    "estimated_cost_micro_cents" BIGINT NOT NULL,
    "admitted_cost_micro_cents" BIGINT NOT NULL DEFAULT 0,
    "max_cost_micro_cents" BIGINT,
    "completion_window_seconds" INTEGER,
    "expires_at" TIMESTAMPTZ(3),
    "webhook_url" TEXT,
    "idempotency_key" TEXT,
    "request_hash" TEXT,
    "request_id" TEXT,
    "cancel_requested_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,
    "completed_at" TIMESTAMPTZ(3),
    "seq" BIGSERIAL NOT NULL,

    CONSTRAINT "batches_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "batch_items" (
    "batch_id" TEXT NOT NULL,
    "line" INTEGER NOT NULL,
    "custom_id" TEXT NOT NULL,
    "model_slug" TEXT NOT NULL,
    "version" TEXT,
    "input" JSONB NOT NULL,
    "webhook_url" TEXT,
    "priority" TEXT,
    "status" "BatchItemStatus" NOT NULL DEFAULT 'queued',
    "cost_micro_cents" BIGINT NOT NULL,
    "job_id" TEXT,
    "error_code" TEXT,
    "error_message" TEXT,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "batch_items_pkey" PRIMARY KEY ("batch_id","line")
);

-- CreateIndex
CREATE INDEX "batches_account_id_created_at_seq_idx" ON "batches"("account_id", "created_at" DESC, "seq" DESC);

-- CreateIndex
CREATE INDEX "batches_account_id_status_idx" ON "batches"("account_id", "status");

-- CreateIndex
CREATE UNIQUE INDEX "batches_account_id_idempotency_key_key" ON "batches"("account_id", "idempotency_key");

-- CreateIndex
CREATE UNIQUE INDEX "batch_items_job_id_key" ON "batch_items"("job_id");

-- CreateIndex
CREATE INDEX "batch_items_batch_id_status_line_idx" ON "batch_items"("batch_id", "status", "line");

-- CreateIndex
CREATE UNIQUE INDEX "batch_items_batch_id_custom_id_key" ON "batch_items"("batch_id", "custom_id");

-- AddForeignKey
ALTER TABLE "batches" ADD CONSTRAINT "batches_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "batch_items" ADD CONSTRAINT "batch_items_batch_id_fkey" FOREIGN KEY ("batch_id") REFERENCES "batches"("id") ON DELETE CASCADE ON UPDATE CASCADE;
