import { jobWorkflowId } from '../contracts/workflows/job';

/** The job workflow's page in the Temporal UI: its summary, details, activity timeline and history. */
export function temporalUiLink(config: { uiUrl: string; namespace: string }, jobId: string): string {
  return `${config.uiUrl}/namespaces/${encodeURIComponent(config.namespace)}/workflows/${jobWorkflowId(jobId)}`;
}
