-- Why an attempt ran: the route a job started on (first), one after a failure (failover), or one started beside a
-- slow first attempt (hedge).
ALTER TABLE "job_attempts" ADD COLUMN "role" TEXT NOT NULL DEFAULT 'first';

-- The attempt whose outputs are the job's, claimed before any output is stored, so of two attempts that both
-- finish only one writes the job's files.
ALTER TABLE "jobs" ADD COLUMN "winning_attempt" TEXT;
