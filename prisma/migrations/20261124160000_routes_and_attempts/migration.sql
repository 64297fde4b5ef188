-- The routes of each model version (provider, upstream route, list price) and its routing policy.
ALTER TABLE "model_versions" ADD COLUMN "routes" JSONB NOT NULL DEFAULT '[]';
ALTER TABLE "model_versions" ADD COLUMN "routing" JSONB NOT NULL DEFAULT '{}';

-- One row per try of a job on one route: its provider, the upstream id stored before the workflow moves on, when it
-- started and ended, how it ended, and what it cost us.
CREATE TABLE "job_attempts" (
    "id" TEXT NOT NULL,
    "job_id" TEXT NOT NULL,
    "number" INTEGER NOT NULL,
    "provider_id" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'starting',
    "submitted_at" TIMESTAMPTZ(3),
    "upstream_id" TEXT,
    "started_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "running_at" TIMESTAMPTZ(3),
    "ended_at" TIMESTAMPTZ(3),
    "error_code" TEXT,
    "error_message" TEXT,
    "upstream_cost_micro_cents" BIGINT,
    "produced_outputs" BOOLEAN NOT NULL DEFAULT false,
    CONSTRAINT "job_attempts_pkey" PRIMARY KEY ("id")
);
CREATE UNIQUE INDEX "job_attempts_job_id_number_key" ON "job_attempts"("job_id", "number");
CREATE INDEX "job_attempts_provider_id_started_at_idx" ON "job_attempts"("provider_id", "started_at");
CREATE INDEX "job_attempts_upstream_id_idx" ON "job_attempts"("upstream_id");
ALTER TABLE "job_attempts" ADD CONSTRAINT "job_attempts_job_id_fkey" FOREIGN KEY ("job_id") REFERENCES "jobs"("id") ON DELETE CASCADE ON UPDATE CASCADE;
