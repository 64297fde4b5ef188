-- Where an upstream that reports its queue first placed an attempt, and when: the pace its queue moves at since then
-- gives the attempt's wait there (src/jobs/eta/upstreamQueue.ts).
ALTER TABLE "job_attempts" ADD COLUMN "upstream_queue_first_position" INTEGER;
ALTER TABLE "job_attempts" ADD COLUMN "upstream_queue_first_seen_at" TIMESTAMPTZ(3);
