-- CreateIndex: the API's over-size sweep reads the uploads still awaiting their PUT, by creation time
CREATE INDEX "uploads_status_created_at_idx" ON "uploads"("status", "created_at");
