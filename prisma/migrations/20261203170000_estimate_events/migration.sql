-- A job's estimate in its events: the place in line, the estimated start and the 90th percentile beside the median
-- (docs/eta.md). A waiting job's place that changes is a `job.progress` event, as a moved estimate already was, at
-- most one a second per job; the line's watcher writes a place or an estimate only when it moved.
ALTER TABLE "job_events" ADD COLUMN "place_in_line" INTEGER,
ADD COLUMN "estimated_start_time" TIMESTAMPTZ(3),
ADD COLUMN "estimated_completion_time_p90" TIMESTAMPTZ(3);

CREATE OR REPLACE FUNCTION "job_event_number"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT'
     OR NEW.status IS DISTINCT FROM OLD.status
     OR NEW.outputs_deleted_at IS DISTINCT FROM OLD.outputs_deleted_at
     OR ((NEW.progress, NEW.upstream_stage, NEW.upstream_queue_position, NEW.estimated_completion_time, NEW.place_in_line)
           IS DISTINCT FROM (OLD.progress, OLD.upstream_stage, OLD.upstream_queue_position, OLD.estimated_completion_time, OLD.place_in_line)
         AND (OLD.last_event_at IS NULL OR now() - OLD.last_event_at >= interval '1 second')) THEN
    NEW.event_sequence := CASE WHEN TG_OP = 'INSERT' THEN 1 ELSE OLD.event_sequence + 1 END;
    NEW.last_event_at := now();
  END IF;
  RETURN NEW;
END $$;

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
  ELSIF (NEW.progress, NEW.upstream_stage, NEW.upstream_queue_position, NEW.estimated_completion_time, NEW.place_in_line)
          IS DISTINCT FROM (OLD.progress, OLD.upstream_stage, OLD.upstream_queue_position, OLD.estimated_completion_time, OLD.place_in_line) THEN
    event_type := 'job.progress';
  ELSE
    RETURN NULL;
  END IF;
  -- The counter row stays locked until commit: the events of an account commit in account_sequence order.
  INSERT INTO "account_event_sequences" AS s ("account_id", "last_sequence") VALUES (NEW.account_id, 1)
  ON CONFLICT ("account_id") DO UPDATE SET "last_sequence" = s.last_sequence + 1
  RETURNING s.last_sequence INTO account_seq;
  INSERT INTO "job_events" ("account_id", "account_sequence", "job_id", "sequence", "type", "status", "progress", "stage",
                            "queue_position", "estimated_completion_time", "place_in_line", "estimated_start_time",
                            "estimated_completion_time_p90", "error_code", "error_message",
                            "refunded_micro_cents", "outputs", "outputs_retained_until", "outputs_deleted_at",
                            "outputs_deleted_reason", "created_at")
  VALUES (NEW.account_id, account_seq, NEW.id, NEW.event_sequence, event_type, NEW.status, NEW.progress, NEW.upstream_stage,
          NEW.upstream_queue_position,
          CASE WHEN NEW.status IN ('pending', 'processing') THEN NEW.estimated_completion_time END,
          CASE NEW.status WHEN 'pending' THEN NEW.place_in_line WHEN 'processing' THEN 0 END,
          CASE NEW.status WHEN 'pending' THEN NEW.estimated_start_time WHEN 'processing' THEN NEW.started_at END,
          CASE WHEN NEW.status IN ('pending', 'processing') THEN NEW.estimated_completion_time_p90 END,
          NEW.error_code, NEW.error_message, NEW.refunded_micro_cents,
          CASE WHEN NEW.status = 'completed' AND NEW.outputs_deleted_at IS NULL THEN NEW.outputs END,
          NEW.outputs_retained_until, NEW.outputs_deleted_at, NEW.outputs_deleted_reason, now());
  PERFORM pg_notify('job_events', NEW.account_id);
  RETURN NULL;
END $$;
