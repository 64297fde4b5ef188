-- Content Credentials on the account's outputs (docs/provenance.md): on unless an operator turns them off; the prompt
-- goes into the manifests only when the operator lets it, on the customer's request.
ALTER TABLE "accounts" ADD COLUMN "provenance_enabled" BOOLEAN NOT NULL DEFAULT true,
ADD COLUMN "provenance_includes_prompt" BOOLEAN NOT NULL DEFAULT false;
