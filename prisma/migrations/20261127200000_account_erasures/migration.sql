-- An operator's erasure of an account: requested once, complete when completed_at is set.
CREATE TABLE "account_erasures" (
    "account_id" TEXT NOT NULL,
    "requested_by_key_id" TEXT NOT NULL,
    "requested_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "completed_at" TIMESTAMPTZ(3),

    CONSTRAINT "account_erasures_pkey" PRIMARY KEY ("account_id")
);

ALTER TABLE "account_erasures" ADD CONSTRAINT "account_erasures_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;
