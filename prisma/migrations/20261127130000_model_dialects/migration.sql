-- How compatible APIs (the OpenAI dialect) name a model and map their fields onto its input.
ALTER TABLE "models" ADD COLUMN "dialects" JSONB NOT NULL DEFAULT '{}';
