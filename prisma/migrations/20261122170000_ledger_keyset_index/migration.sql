-- DropIndex: the new index serves every query the old one did, plus the ledger listing's keyset order
DROP INDEX "ledger_entries_account_id_created_at_idx";

-- CreateIndex
CREATE INDEX "ledger_entries_account_id_created_at_id_idx" ON "ledger_entries"("account_id", "created_at" DESC, "id" DESC);
