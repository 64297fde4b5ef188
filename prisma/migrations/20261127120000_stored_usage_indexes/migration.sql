-- What accounts keep in storage, summed per account and in all: index-only ranges over the jobs whose outputs are
-- still stored and the uploads still stored, so the sums cost what is stored, not the whole history.
-- CreateIndex
CREATE INDEX "jobs_stored_outputs_idx" ON "jobs"("stored_output_count", "account_id", "stored_output_bytes");

-- CreateIndex
CREATE INDEX "uploads_stored_idx" ON "uploads"("status", "account_id", "size_bytes");
