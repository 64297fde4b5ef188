-- DropIndex: the over-size sweep no longer reads uploads by status and creation time; it lists the bucket and looks
-- rows up by object key (unique)
DROP INDEX "uploads_status_created_at_idx";

-- AlterTable: the ETag of the object recorded as uploaded, so a later PUT to the same URL is seen and inspected
ALTER TABLE "uploads" ADD COLUMN     "object_etag" TEXT;
