-- What the submit promised (src/jobs/eta): its median and 90th-percentile completion as answered, kept as they were
-- while estimated_completion_time moves with the line and the progress, so a finished job's estimate can be scored
-- (genmedia_eta_error_ratio). Null on jobs admitted before.
ALTER TABLE "jobs"
  ADD COLUMN "promised_completion_time" TIMESTAMPTZ(3),
  ADD COLUMN "promised_completion_time_p90" TIMESTAMPTZ(3);
