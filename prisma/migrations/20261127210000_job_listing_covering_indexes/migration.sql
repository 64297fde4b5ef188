-- The job listing's four indexes carry every column a page returns (after the keyset, which alone orders them), so a
-- page is an index-only scan: a deep page reads a few index pages instead of a table page per job, none of which a
-- walk through the listing finds in the buffer cache (docs/scaling.md).

-- DropIndex
DROP INDEX "jobs_account_id_created_at_seq_idx";

-- DropIndex
DROP INDEX "jobs_account_id_status_created_at_seq_idx";

-- DropIndex
DROP INDEX "jobs_account_id_model_slug_created_at_seq_idx";

-- DropIndex
DROP INDEX "jobs_account_id_status_model_slug_created_at_seq_idx";

-- CreateIndex
CREATE INDEX "jobs_listing_idx" ON "jobs"("account_id", "created_at" DESC, "seq" DESC, "id", "status", "progress", "model_slug", "completed_at");

-- CreateIndex
CREATE INDEX "jobs_listing_status_idx" ON "jobs"("account_id", "status", "created_at" DESC, "seq" DESC, "id", "progress", "model_slug", "completed_at");

-- CreateIndex
CREATE INDEX "jobs_listing_model_idx" ON "jobs"("account_id", "model_slug", "created_at" DESC, "seq" DESC, "id", "status", "progress", "completed_at");

-- CreateIndex
CREATE INDEX "jobs_listing_status_model_idx" ON "jobs"("account_id", "status", "model_slug", "created_at" DESC, "seq" DESC, "id", "progress", "completed_at");
