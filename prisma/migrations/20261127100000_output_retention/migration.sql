-- Output retention: an account's override of its plan's default, and per job the retention fixed at submit, when the
-- outputs go, when and why they went, when the job's content was erased, and what its outputs occupy in storage.
ALTER TABLE "accounts" ADD COLUMN "output_retention_seconds" INTEGER,
ADD COLUMN "output_retention_overridden" BOOLEAN NOT NULL DEFAULT false;

ALTER TABLE "jobs" ADD COLUMN "retention_seconds" INTEGER,
ADD COLUMN "outputs_retained_until" TIMESTAMPTZ(3),
ADD COLUMN "outputs_deleted_at" TIMESTAMPTZ(3),
ADD COLUMN "outputs_deleted_reason" TEXT,
ADD COLUMN "content_erased_at" TIMESTAMPTZ(3),
ADD COLUMN "stored_output_bytes" BIGINT NOT NULL DEFAULT 0,
ADD COLUMN "stored_output_count" INTEGER NOT NULL DEFAULT 0;

-- Jobs completed before this change: what their outputs occupy.
UPDATE "jobs" j SET "stored_output_bytes" = o.bytes, "stored_output_count" = o.objects
FROM (SELECT "id", COALESCE(SUM((e->>'sizeBytes')::bigint), 0) AS bytes, COUNT(e)::int AS objects
        FROM "jobs", jsonb_array_elements("outputs") e
       WHERE "status" = 'completed' AND jsonb_typeof("outputs") = 'array'
       GROUP BY "id") o
WHERE j."id" = o."id";

CREATE INDEX "jobs_outputs_deleted_at_outputs_retained_until_idx" ON "jobs"("outputs_deleted_at", "outputs_retained_until");
