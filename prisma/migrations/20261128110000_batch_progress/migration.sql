-- A batch may ask for `batch.progress` webhooks beside `batch.completed` (webhookEvents at submit).
ALTER TABLE "batches" ADD COLUMN "progress_webhook" BOOLEAN NOT NULL DEFAULT false;

-- A batch's progress streams (GET /v1/batches/{batchId}/events) hear of every change of what GET /v1/batches/{batchId}
-- shows on the channel `batch_changes`, the payload the batch id, on the API's one LISTEN connection of job events: an
-- item's job ending or refunded, an item's own status (admitted, skipped, expired, cancelled), the batch's status.
-- PostgreSQL folds the same notification within a transaction into one, so a statement over many items sends one.
CREATE FUNCTION "batch_change_notify_job"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('batch_changes', NEW.batch_id);
  RETURN NULL;
END $$;

CREATE TRIGGER "jobs_batch_change" AFTER UPDATE OF "status", "cost_micro_cents", "refunded_micro_cents" ON "jobs"
  FOR EACH ROW WHEN (NEW.batch_id IS NOT NULL AND (NEW.status, NEW.cost_micro_cents, NEW.refunded_micro_cents)
                      IS DISTINCT FROM (OLD.status, OLD.cost_micro_cents, OLD.refunded_micro_cents))
  EXECUTE FUNCTION "batch_change_notify_job"();

CREATE FUNCTION "batch_change_notify_items"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('batch_changes', b.batch_id) FROM (SELECT DISTINCT n.batch_id FROM changed_new n
    JOIN changed_old o ON o.batch_id = n.batch_id AND o.line = n.line WHERE n.status IS DISTINCT FROM o.status) b;
  RETURN NULL;
END $$;

CREATE TRIGGER "batch_items_change" AFTER UPDATE ON "batch_items"
  REFERENCING OLD TABLE AS changed_old NEW TABLE AS changed_new
  FOR EACH STATEMENT EXECUTE FUNCTION "batch_change_notify_items"();

CREATE FUNCTION "batch_change_notify_batch"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('batch_changes', NEW.id);
  RETURN NULL;
END $$;

CREATE TRIGGER "batches_change" AFTER UPDATE OF "status", "admitted_cost_micro_cents", "completed_at", "cancel_requested_at" ON "batches"
  FOR EACH ROW WHEN ((NEW.status, NEW.admitted_cost_micro_cents, NEW.completed_at, NEW.cancel_requested_at)
                      IS DISTINCT FROM (OLD.status, OLD.admitted_cost_micro_cents, OLD.completed_at, OLD.cancel_requested_at))
  EXECUTE FUNCTION "batch_change_notify_batch"();
