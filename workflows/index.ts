/** Every workflow the `jobs` task queue runs. */
export { jobWorkflow } from './job';
export { uploadExpiryWorkflow } from './upload';
export { webhookDeliveryWorkflow } from './webhooks';
export { jobEventWebhooksWorkflow } from './jobEventWebhooks';
export { maintenanceWorkflow } from './maintenance';
export { reconcileJobsWorkflow } from './reconcile';
export { outputDeliveryWorkflow } from './outputDelivery';
export { retentionSweepWorkflow } from './retention';
export { jobErasureWorkflow, accountErasureWorkflow } from './erasure';
export { batchWorkflow } from './batch';
