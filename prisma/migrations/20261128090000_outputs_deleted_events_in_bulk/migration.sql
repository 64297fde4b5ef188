-- A transaction that sets genmedia.outputs_deleted_events to 'bulk' writes the job.outputs_deleted events of the rows
-- it marks itself, in one statement per batch instead of one trigger run per row: the retention sweep marks thousands
-- of one account's jobs at a time, and a row at a time each took the account's event counter again.
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
  ELSIF NEW.outputs_deleted_at IS DISTINCT FROM OLD.outputs_deleted_at THEN
    -- deleteJobOutputs writes these events for all its rows in one statement (see src/outputs/deleteOutputs.ts).
    IF current_setting('genmedia.outputs_deleted_events', true) = 'bulk' THEN
      RETURN NULL;
    END IF;
    event_type := 'job.outputs_deleted';
    UPDATE "job_events" SET "outputs" = '[]'::jsonb WHERE "job_id" = NEW.id AND "outputs" IS NOT NULL;
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
                            "refunded_micro_cents", "outputs", "outputs_retained_until", "outputs_deleted_at",
                            "outputs_deleted_reason", "created_at")
  VALUES (NEW.account_id, account_seq, NEW.id, NEW.event_sequence, event_type, NEW.status, NEW.progress, NEW.upstream_stage,
          NEW.upstream_queue_position,
          CASE WHEN NEW.status IN ('pending', 'processing') THEN NEW.estimated_completion_time END,
          NEW.error_code, NEW.error_message, NEW.refunded_micro_cents,
          CASE WHEN NEW.status = 'completed' AND NEW.outputs_deleted_at IS NULL THEN NEW.outputs END,
          NEW.outputs_retained_until, NEW.outputs_deleted_at, NEW.outputs_deleted_reason, now());
  PERFORM pg_notify('job_events', NEW.account_id);
  RETURN NULL;
END $$;
