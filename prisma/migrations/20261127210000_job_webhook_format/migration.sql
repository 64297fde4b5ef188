-- The body a job's webhooks are sent as: null for genmedia's envelope, `replicate` for a Replicate prediction.
ALTER TABLE "jobs" ADD COLUMN "webhook_format" TEXT;
