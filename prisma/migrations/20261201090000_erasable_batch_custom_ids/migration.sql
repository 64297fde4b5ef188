-- A batch line's customId is the caller's and may name a person: an erasure clears it (NULL, which the unique index
-- of (batch_id, custom_id) allows any number of times), as it clears the job's copy in jobs.custom_id.
ALTER TABLE "batch_items" ALTER COLUMN "custom_id" DROP NOT NULL;
