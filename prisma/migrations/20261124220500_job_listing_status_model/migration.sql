-- CreateIndex: the job listing with both a status and a model filter starts at its cursor and reads matching rows only
CREATE INDEX "jobs_account_id_status_model_slug_created_at_seq_idx" ON "jobs"("account_id", "status", "model_slug", "created_at" DESC, "seq" DESC);
