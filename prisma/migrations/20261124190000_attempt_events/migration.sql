-- `job.attempt` events: when a job starts another attempt (a failover, or a hedge beside its first), an event of the
-- job records the job's attempts as they stand then. A job that runs on its first route has none.
ALTER TABLE "job_events" ADD COLUMN "attempts" JSONB;

-- A change of the job's event sequence alone is an attempt event, written by the attempts trigger below.
CREATE OR REPLACE FUNCTION "job_event_write"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  account_seq BIGINT;
  event_type TEXT;
BEGIN
  IF TG_OP = 'UPDATE' AND NEW.event_sequence = OLD.event_sequence THEN
    RETURN NULL;
  END IF;
  IF TG_OP = 'INSERT' THEN
    event_type := 'job.created';
  ELSIF NEW.status IS DISTINCT FROM OLD.status THEN
    event_type := 'job.' || NEW.status::text;
  ELSIF (NEW.progress, NEW.upstream_stage, NEW.upstream_queue_position, NEW.estimated_completion_time)
          IS DISTINCT FROM (OLD.progress, OLD.upstream_stage, OLD.upstream_queue_position, OLD.estimated_completion_time) THEN
    event_type := 'job.progress';
  ELSE
    RETURN NULL;
  END IF;
  -- The counter row stays locked until commit: the events of an account commit in account_sequence order.
  INSERT INTO "account_event_sequences" AS s ("account_id", "last_sequence") VALUES (NEW.account_id, 1)
  ON CONFLICT ("account_id") DO UPDATE SET "last_sequence" = s.last_sequence + 1
  RETURNING s.last_sequence INTO account_seq;
  INSERT INTO "job_events" ("account_id", "account_sequence", "job_id", "sequence", "type", "status", "progress", "stage",
                            "queue_position", "estimated_completion_time", "error_code", "error_message",
                            "refunded_micro_cents", "outputs", "created_at")
  VALUES (NEW.account_id, account_seq, NEW.id, NEW.event_sequence, event_type, NEW.status, NEW.progress, NEW.upstream_stage,
          NEW.upstream_queue_position,
          CASE WHEN NEW.status IN ('pending', 'processing') THEN NEW.estimated_completion_time END,
          NEW.error_code, NEW.error_message, NEW.refunded_micro_cents,
          CASE WHEN NEW.status = 'completed' THEN NEW.outputs END, now());
  PERFORM pg_notify('job_events', NEW.account_id);
  RETURN NULL;
END $$;

CREATE FUNCTION "job_attempt_event"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  job "jobs"%ROWTYPE;
  account_seq BIGINT;
BEGIN
  UPDATE "jobs" SET "event_sequence" = "event_sequence" + 1 WHERE "id" = NEW.job_id RETURNING * INTO job;
  INSERT INTO "account_event_sequences" AS s ("account_id", "last_sequence") VALUES (job.account_id, 1)
  ON CONFLICT ("account_id") DO UPDATE SET "last_sequence" = s.last_sequence + 1
  RETURNING s.last_sequence INTO account_seq;
  INSERT INTO "job_events" ("account_id", "account_sequence", "job_id", "sequence", "type", "status", "progress", "stage",
                            "queue_position", "estimated_completion_time", "refunded_micro_cents", "attempts", "created_at")
  VALUES (job.account_id, account_seq, job.id, job.event_sequence, 'job.attempt', job.status, job.progress, job.upstream_stage,
          job.upstream_queue_position,
          CASE WHEN job.status IN ('pending', 'processing') THEN job.estimated_completion_time END,
          job.refunded_micro_cents,
          -- What the API shows of each attempt (never what it cost us).
          (SELECT jsonb_agg(to_jsonb(v) ORDER BY v.number)
             FROM (SELECT "number", "provider_id", "role", "status", "upstream_id", "started_at", "running_at", "ended_at",
                          "error_code", "error_message", "produced_outputs"
                     FROM "job_attempts" WHERE "job_id" = NEW.job_id) v),
          now());
  PERFORM pg_notify('job_events', job.account_id);
  RETURN NULL;
END $$;

CREATE TRIGGER "job_attempts_event" AFTER INSERT ON "job_attempts"
  FOR EACH ROW WHEN (NEW.number > 1) EXECUTE FUNCTION "job_attempt_event"();
