/** Contract between the API, the upload expiry workflow and its activity. Pure: safe to import from workflows. */
export const UPLOAD_EXPIRY_WORKFLOW = 'uploadExpiryWorkflow';

export interface UploadExpiryInput {
  fileId: string;
  /** ISO 8601; the workflow sleeps until this instant, then deletes the object and marks the upload expired. */
  expiresAt: string;
}

export interface ExpireUploadResult {
  /** False when the upload row no longer exists (e.g. its account was deleted). */
  found: boolean;
}
