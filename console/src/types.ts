export type {
  Account,
  CatalogModel,
  CostEstimate,
  Job,
  JobEvent,
  JobOutput,
  JobStatus,
  JobSummary,
  LedgerEntry,
  ModelDetail,
  ModelVersion,
} from '@genmedia/client';
