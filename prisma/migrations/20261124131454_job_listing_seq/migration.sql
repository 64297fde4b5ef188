-- DropIndex
DROP INDEX "jobs_account_id_created_at_id_idx";

-- DropIndex
DROP INDEX "jobs_account_id_model_slug_created_at_id_idx";

-- DropIndex
DROP INDEX "jobs_account_id_status_created_at_id_idx";

-- AlterTable: insertion order, the job listing's tie-breaker within one millisecond of created_at (job ids are random).
-- Existing rows are numbered in storage order: any fixed order of the rows already there will do.
ALTER TABLE "jobs" ADD COLUMN     "seq" BIGSERIAL NOT NULL;

-- CreateIndex
CREATE INDEX "jobs_account_id_created_at_seq_idx" ON "jobs"("account_id", "created_at" DESC, "seq" DESC);

-- CreateIndex
CREATE INDEX "jobs_account_id_status_created_at_seq_idx" ON "jobs"("account_id", "status", "created_at" DESC, "seq" DESC);

-- CreateIndex
CREATE INDEX "jobs_account_id_model_slug_created_at_seq_idx" ON "jobs"("account_id", "model_slug", "created_at" DESC, "seq" DESC);
