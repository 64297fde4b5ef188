-- AlterTable
ALTER TABLE "jobs" ADD COLUMN     "event_sequence" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "last_event_at" TIMESTAMPTZ(3);

-- CreateTable
CREATE TABLE "job_events" (
    "account_id" TEXT NOT NULL,
    "account_sequence" BIGINT NOT NULL,
    "job_id" TEXT NOT NULL,
    "sequence" INTEGER NOT NULL,
    "type" TEXT NOT NULL,
    "status" "job_status" NOT NULL,
    "progress" INTEGER NOT NULL,
    "stage" TEXT,
    "queue_position" INTEGER,
    "estimated_completion_time" TIMESTAMPTZ(3),
    "error_code" TEXT,
    "error_message" TEXT,
    "refunded_micro_cents" BIGINT NOT NULL,
    "outputs" JSONB,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "job_events_pkey" PRIMARY KEY ("account_id","account_sequence")
);

-- CreateTable
CREATE TABLE "account_event_sequences" (
    "account_id" TEXT NOT NULL,
    "last_sequence" BIGINT NOT NULL DEFAULT 0,

    CONSTRAINT "account_event_sequences_pkey" PRIMARY KEY ("account_id")
);

-- CreateIndex
CREATE UNIQUE INDEX "job_events_job_id_sequence_key" ON "job_events"("job_id", "sequence");

-- AddForeignKey
ALTER TABLE "job_events" ADD CONSTRAINT "job_events_job_id_fkey" FOREIGN KEY ("job_id") REFERENCES "jobs"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Job events are written here, in the transaction that changes the job, so no code path can change a job without
-- its event. The BEFORE trigger decides whether a change is an event and numbers it, the AFTER trigger writes it.
-- Progress, stage, queue position and ETA changes are one `job.progress` event at most once a second per job.
CREATE FUNCTION "job_event_number"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT'
     OR NEW.status IS DISTINCT FROM OLD.status
     OR ((NEW.progress, NEW.upstream_stage, NEW.upstream_queue_position, NEW.estimated_completion_time)
           IS DISTINCT FROM (OLD.progress, OLD.upstream_stage, OLD.upstream_queue_position, OLD.estimated_completion_time)
         AND (OLD.last_event_at IS NULL OR now() - OLD.last_event_at >= interval '1 second')) THEN
    NEW.event_sequence := CASE WHEN TG_OP = 'INSERT' THEN 1 ELSE OLD.event_sequence + 1 END;
    NEW.last_event_at := now();
  END IF;
  RETURN NEW;
END $$;

CREATE FUNCTION "job_event_write"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  account_seq BIGINT;
  event_type TEXT;
BEGIN
  IF TG_OP = 'UPDATE' AND NEW.event_sequence = OLD.event_sequence THEN
    RETURN NULL;
  END IF;
  event_type := CASE
    WHEN TG_OP = 'INSERT' THEN 'job.created'
    WHEN NEW.status IS DISTINCT FROM OLD.status THEN 'job.' || NEW.status::text
    ELSE 'job.progress'
  END;
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

CREATE TRIGGER "jobs_event_number" BEFORE INSERT OR UPDATE ON "jobs" FOR EACH ROW EXECUTE FUNCTION "job_event_number"();
CREATE TRIGGER "jobs_event_write" AFTER INSERT OR UPDATE ON "jobs" FOR EACH ROW EXECUTE FUNCTION "job_event_write"();
