-- An account's own S3-compatible bucket for output delivery; the secret access key is stored sealed (AES-256-GCM).
CREATE TABLE "account_destinations" (
    "account_id" TEXT NOT NULL,
    "endpoint" TEXT NOT NULL,
    "region" TEXT NOT NULL,
    "bucket" TEXT NOT NULL,
    "prefix" TEXT NOT NULL,
    "access_key_id" TEXT NOT NULL,
    "secret_ciphertext" BYTEA NOT NULL,
    "secret_key_id" TEXT NOT NULL,
    "configured_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "account_destinations_pkey" PRIMARY KEY ("account_id")
);

ALTER TABLE "account_destinations" ADD CONSTRAINT "account_destinations_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;
