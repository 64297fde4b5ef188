-- A rotated key charges the spend counters of the first key of its rotation chain (one budget for the keys of a
-- chain, the overlap included), and the audit log keeps the server's request id with the client's beside it.

-- AlterTable
ALTER TABLE "api_keys" ADD COLUMN "budget_key_id" TEXT;

-- AlterTable
ALTER TABLE "audit_entries" ADD COLUMN "client_request_id" TEXT;

-- CreateIndex
CREATE INDEX "api_keys_budget_key_id_idx" ON "api_keys"("budget_key_id");

-- AddForeignKey
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_budget_key_id_fkey" FOREIGN KEY ("budget_key_id") REFERENCES "api_keys"("id") ON DELETE NO ACTION ON UPDATE CASCADE;

-- Keys rotated before now join the budget of the first key of their chain (followed through replaced_by).
WITH RECURSIVE chain AS (
  SELECT k.id AS root, k.id FROM "api_keys" k
  WHERE NOT EXISTS (SELECT 1 FROM "api_keys" p WHERE p.replaced_by = k.id)
  UNION ALL
  SELECT chain.root, p.replaced_by FROM chain JOIN "api_keys" p ON p.id = chain.id WHERE p.replaced_by IS NOT NULL
)
UPDATE "api_keys" k SET "budget_key_id" = chain.root FROM chain WHERE k.id = chain.id AND chain.root <> k.id;

-- Each copy counted the spend of its chain separately since the rotation: the shared counters start at what the keys
-- of the chain spent in the current UTC day and month (charges less refunds), the others are no longer read.
UPDATE "api_keys" r SET
  "spend_day" = (now() AT TIME ZONE 'UTC')::date,
  "spent_day_micro_cents" = COALESCE((SELECT SUM(j.cost_micro_cents - j.refunded_micro_cents) FROM "jobs" j JOIN "api_keys" k ON k.id = j.api_key_id
    WHERE COALESCE(k.budget_key_id, k.id) = r.id AND j.created_at >= ((now() AT TIME ZONE 'UTC')::date)::timestamp AT TIME ZONE 'UTC'), 0),
  "spend_month" = date_trunc('month', now() AT TIME ZONE 'UTC')::date,
  "spent_month_micro_cents" = COALESCE((SELECT SUM(j.cost_micro_cents - j.refunded_micro_cents) FROM "jobs" j JOIN "api_keys" k ON k.id = j.api_key_id
    WHERE COALESCE(k.budget_key_id, k.id) = r.id AND j.created_at >= date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), 0)
WHERE EXISTS (SELECT 1 FROM "api_keys" s WHERE s.budget_key_id = r.id);

UPDATE "api_keys" SET "spend_day" = NULL, "spent_day_micro_cents" = 0, "spend_month" = NULL, "spent_month_micro_cents" = 0
WHERE "budget_key_id" IS NOT NULL;
