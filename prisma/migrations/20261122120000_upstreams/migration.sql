-- AlterTable
ALTER TABLE "jobs" ADD COLUMN     "upstream_cost_micro_cents" BIGINT,
ADD COLUMN     "upstream_id" TEXT,
ADD COLUMN     "upstream_queue_position" INTEGER,
ADD COLUMN     "upstream_stage" TEXT,
ADD COLUMN     "upstream_submitted_at" TIMESTAMPTZ(3);

-- AlterTable
ALTER TABLE "model_versions" ADD COLUMN     "upstream" JSONB;

-- CreateTable
CREATE TABLE "upstream_callbacks" (
    "upstream" TEXT NOT NULL,
    "callback_id" TEXT NOT NULL,
    "upstream_id" TEXT NOT NULL,
    "received_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "upstream_callbacks_pkey" PRIMARY KEY ("upstream","callback_id")
);

-- CreateIndex
CREATE INDEX "upstream_callbacks_received_at_idx" ON "upstream_callbacks"("received_at");

-- CreateIndex
CREATE INDEX "jobs_provider_id_upstream_id_idx" ON "jobs"("provider_id", "upstream_id");
