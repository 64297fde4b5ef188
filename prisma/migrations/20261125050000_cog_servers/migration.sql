-- Self-hosted Cog servers (issue 24): the servers of each "cog" provider and the slot each prediction holds.
CREATE TABLE "cog_servers" (
    "provider_id" TEXT NOT NULL,
    "url" TEXT NOT NULL,
    "slots" INTEGER NOT NULL,
    "enabled" BOOLEAN NOT NULL DEFAULT true,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "cog_servers_pkey" PRIMARY KEY ("provider_id","url")
);

CREATE TABLE "cog_predictions" (
    "id" TEXT NOT NULL,
    "provider_id" TEXT NOT NULL,
    "server_url" TEXT NOT NULL,
    "secret_hash" BYTEA NOT NULL,
    "server_started_at" TEXT,
    "snapshot" JSONB,
    "terminal" BOOLEAN NOT NULL DEFAULT false,
    "missing_since" TIMESTAMPTZ(3),
    "leased_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "lease_expires_at" TIMESTAMPTZ(3) NOT NULL,
    "released_at" TIMESTAMPTZ(3),

    CONSTRAINT "cog_predictions_pkey" PRIMARY KEY ("id")
);

CREATE INDEX "cog_predictions_server_url_released_at_idx" ON "cog_predictions"("server_url", "released_at");
