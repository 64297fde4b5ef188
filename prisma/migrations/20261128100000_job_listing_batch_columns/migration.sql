-- A page of the job listing shows a batch item's batchId and customId: the listing's indexes carry them too, so a
-- page stays an index-only scan.

-- DropIndex
DROP INDEX "jobs_listing_idx";

-- DropIndex
DROP INDEX "jobs_listing_status_idx";

-- DropIndex
DROP INDEX "jobs_listing_model_idx";

-- DropIndex
DROP INDEX "jobs_listing_status_model_idx";

-- CreateIndex
CREATE INDEX "jobs_listing_idx" ON "jobs"("account_id", "created_at" DESC, "seq" DESC, "id", "status", "progress", "model_slug", "completed_at", "batch_id", "custom_id");

-- CreateIndex
CREATE INDEX "jobs_listing_status_idx" ON "jobs"("account_id", "status", "created_at" DESC, "seq" DESC, "id", "progress", "model_slug", "completed_at", "batch_id", "custom_id");

-- CreateIndex
CREATE INDEX "jobs_listing_model_idx" ON "jobs"("account_id", "model_slug", "created_at" DESC, "seq" DESC, "id", "status", "progress", "completed_at", "batch_id", "custom_id");

-- CreateIndex
CREATE INDEX "jobs_listing_status_model_idx" ON "jobs"("account_id", "status", "model_slug", "created_at" DESC, "seq" DESC, "id", "progress", "completed_at", "batch_id", "custom_id");
