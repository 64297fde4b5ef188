-- What a job's estimate is made from and what it says (src/jobs/eta): the line it waits in (its first route's
-- Temporal task queue), its place there (Temporal's priority key and the account's fair-share weight it was
-- dispatched with), the work its input asks for against the version's default input, and the estimate itself: its
-- start and its completion's 90th percentile beside the median (estimated_completion_time), and its place in line
-- (null once it runs).
ALTER TABLE "jobs"
  ADD COLUMN "task_queue" TEXT,
  ADD COLUMN "priority_key" SMALLINT NOT NULL DEFAULT 3,
  ADD COLUMN "fairness_weight" DOUBLE PRECISION NOT NULL DEFAULT 1,
  ADD COLUMN "work_scale" DOUBLE PRECISION NOT NULL DEFAULT 1,
  ADD COLUMN "estimated_start_time" TIMESTAMPTZ(3),
  ADD COLUMN "estimated_completion_time_p90" TIMESTAMPTZ(3),
  ADD COLUMN "place_in_line" INTEGER;

-- A line's waiting jobs in admission order, read for every estimate.
CREATE INDEX "jobs_line_idx" ON "jobs" ("task_queue", "seq") WHERE "status" = 'pending';

-- The task queue each attempt ran on: the attempts open on a line hold its slots, and its latest succeeded ones tell
-- how long its jobs run.
ALTER TABLE "job_attempts" ADD COLUMN "task_queue" TEXT;
CREATE INDEX "job_attempts_line_open_idx" ON "job_attempts" ("task_queue", "started_at") WHERE "ended_at" IS NULL;
CREATE INDEX "job_attempts_line_succeeded_idx" ON "job_attempts" ("task_queue", "ended_at" DESC) WHERE "status" = 'succeeded';

-- The slots each provider worker process runs on its task queue, refreshed while it runs: a line's capacity is the
-- sum of its workers' rows seen lately.
CREATE TABLE "provider_slots" (
  "worker_id" TEXT NOT NULL,
  "task_queue" TEXT NOT NULL,
  "provider_id" TEXT NOT NULL,
  "slots" INTEGER NOT NULL,
  "seen_at" TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
  CONSTRAINT "provider_slots_pkey" PRIMARY KEY ("worker_id", "task_queue")
);
CREATE INDEX "provider_slots_task_queue_seen_at_idx" ON "provider_slots" ("task_queue", "seen_at");
