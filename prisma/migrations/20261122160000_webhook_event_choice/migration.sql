-- AlterTable
ALTER TABLE "jobs" ADD COLUMN     "webhook_events" TEXT[] DEFAULT ARRAY[]::TEXT[];

-- DropIndex: a job now has one webhook event per progress report, the event id stays unique.
DROP INDEX "webhook_events_job_id_type_key";

-- CreateIndex
CREATE INDEX "webhook_events_job_id_idx" ON "webhook_events"("job_id");
