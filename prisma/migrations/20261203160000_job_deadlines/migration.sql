-- A job's deadline: when it must be done by, fixed at submit (docs/eta.md).
ALTER TABLE "jobs" ADD COLUMN "deadline" TIMESTAMPTZ(3);
