/**
 * The expiry of one presigned upload (`upload:<fileId>`), started by presign: it sleeps until the upload expires,
 * then deletes the object and marks the upload expired.
 */
import { workflowContract } from './define';

export function uploadWorkflowId(fileId: string): string {
  return `upload:${fileId}`;
}

export interface UploadExpiryInput {
  fileId: string;
  /** ISO 8601; the workflow sleeps until this instant, then deletes the object and marks the upload expired. */
  expiresAt: string;
}

export interface ExpireUploadResult {
  /** False when the upload row no longer exists (e.g. its account was deleted). */
  found: boolean;
}

export const uploadExpiryWorkflowContract = workflowContract<[UploadExpiryInput], void>('uploadExpiryWorkflow');
