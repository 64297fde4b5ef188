import type { components } from './generated/openapi';

type Schemas = components['schemas'];

export type Job = Schemas['JobDetail'];
export type JobSummary = Schemas['Job'];
export type JobStatus = Job['status'];
export type JobEvent = Schemas['JobEvent'];
export type JobOutput = Schemas['JobOutput'];
export type JobAttempt = Schemas['JobAttempt'];
export type JobPage = Schemas['JobPage'];
export type SubmitJobRequest = Schemas['SubmitJobRequest'];
export type SubmitJobResponse = Schemas['SubmitJobResponse'];
export type EstimateRequest = Schemas['EstimateRequest'];
export type CostEstimate = Schemas['CostEstimate'];
export type CancelJobResponse = Schemas['CancelJobResponse'];
export type JobErasure = Schemas['JobErasure'];
export type ModelListEntry = Schemas['ModelListEntry'];
export type ModelDetail = Schemas['ModelDetail'];
export type ModelVersion = Schemas['ModelVersion'];
export type CatalogModel = Schemas['CatalogModel'];
export type CatalogProvider = Schemas['CatalogProvider'];
export type CatalogCategory = Schemas['Category'];
export type CapabilityGroup = Schemas['CapabilityGroup'];
export type Provider = Schemas['Provider'];
export type PresignedUpload = Schemas['PresignedUpload'];
export type UploadStatus = Schemas['UploadStatus'];
export type UploadContentType = Schemas['PresignUploadRequest']['contentType'];
export type JobWebhooks = Schemas['JobWebhooks'];
export type WebhookRedelivery = Schemas['WebhookRedelivery'];
export type WebhookPayload = Schemas['WebhookPayload'];
export type WebhookEventType = WebhookPayload['type'];
export type ApiErrorCode = Schemas['Error']['error']['code'];
export type Account = Schemas['Account'];
export type OutputProvenance = Schemas['OutputProvenance'];
export type ProvenanceReport = Schemas['ProvenanceReport'];
export type ProvenanceVerification = Schemas['ProvenanceVerification'];
export type AccountKey = Schemas['AccountKey'];
export type SpendDay = Schemas['SpendDay'];
export type LedgerEntry = Schemas['LedgerEntry'];
export type LedgerEntryKind = LedgerEntry['kind'];
export type LedgerPage = Schemas['LedgerPage'];
export type Destination = Schemas['Destination'];
/** `region` (default `us-east-1`) and `prefix` (default: the bucket root) may be left out. */
export type PutDestinationRequest = Omit<Schemas['PutDestinationRequest'], 'region' | 'prefix'> & Partial<Pick<Schemas['PutDestinationRequest'], 'region' | 'prefix'>>;

export type SpendLimits = Schemas['SpendLimits'];
export type SpendLimitState = Schemas['SpendLimitState'];
export type AdminAccount = Schemas['AdminAccount'];
export type AccountErasure = Schemas['AccountErasure'];
export type CreatedAccount = Schemas['CreatedAccount'];
export type AdminAccountPage = Schemas['AdminAccountPage'];
export type CreateAccountRequest = Schemas['CreateAccountRequest'];
export type UpdateAccountRequest = Schemas['UpdateAccountRequest'];
export type AdminKey = Schemas['AdminKey'];
export type CreateKeyRequest = Schemas['CreateKeyRequest'];
export type IssuedKey = Schemas['IssuedKey'];
export type RotatedKey = Schemas['RotatedKey'];
export type GrantCreditsRequest = Schemas['GrantCreditsRequest'];
export type CreditGrant = Schemas['CreditGrant'];
export type UsageReport = Schemas['UsageReport'];
export type UsageRow = Schemas['UsageRow'];
export type AuditEntry = Schemas['AuditEntry'];
export type AuditPage = Schemas['AuditPage'];
export type WebhookSecretRotation = Schemas['WebhookSecretRotation'];
export type AdminJob = Schemas['AdminJob'];
export type Margins = Schemas['Margins'];
export type ImportCogRequest = Schemas['ImportCogRequest'];
export type CogImport = Schemas['CogImport'];
export type VersionStatusRequest = Schemas['VersionStatusRequest'];
export type VersionStatusChange = Schemas['VersionStatusChange'];

export const TERMINAL_JOB_STATUSES: readonly JobStatus[] = ['completed', 'failed', 'cancelled'];

export function isTerminal(status: JobStatus): boolean {
  return TERMINAL_JOB_STATUSES.includes(status);
}

export type Batch = Schemas['Batch'];
export type BatchSummary = Schemas['BatchListEntry'];
export type BatchPage = Schemas['BatchPage'];
export type BatchLine = Schemas['BatchLine'];
export type BatchResultLine = Schemas['BatchResultLine'];
export type BatchEstimate = Schemas['BatchEstimate'];
export type CreateBatchRequest = Schemas['CreateBatchRequest'];
export type BatchStatus = Batch['status'];

/** A batch's items that will not change again: completed, failed, cancelled, skipped or expired. */
export function finalItemCount(counts: Batch['counts']): number {
  return counts.completed + counts.failed + counts.cancelled + counts.skipped + counts.expired;
}

/** Whether a batch will change no more: every item is final. */
export function isBatchFinal(status: BatchStatus): boolean {
  return status === 'completed' || status === 'cancelled' || status === 'expired';
}
