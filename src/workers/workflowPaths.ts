import path from 'node:path';
import { REPO_ROOT } from '../config';
import { WORKFLOW_TRACING_MODULES } from '../observability/tracing';

export const WORKFLOWS_PATH = path.join(REPO_ROOT, 'workflows', 'index.ts');
export const BUNDLE_SCRIPT = path.join(REPO_ROOT, 'src', 'workers', 'bundleWorkflows.ts');

/** Where a worker running the sources keeps its workflow bundle for the next start (src/workers/workflowBundleCache.ts). */
export const KEPT_BUNDLE_DIR = path.join(REPO_ROOT, 'node_modules', '.cache', 'genmedia', 'workflow-bundle');

/** Whether this is the compiled JavaScript of `npm run build` (dist/src/workers/), not the TypeScript sources. */
export const RUNNING_BUILT = path.extname(__filename) === '.js';

/** The workflow bundle `npm run build` writes at the top of dist/. Meaningful only when RUNNING_BUILT. */
export const PREBUILT_BUNDLE = path.resolve(__dirname, '..', '..', 'workflow-bundle.js');

/**
 * The workflow interceptor modules every bundle carries: tracing's, whether tracing is on or off. The worker switches
 * them at run time (their spans are exported, or dropped by TRACING_OFF's sink), so a setting never changes the
 * workflow code, and so never the build id (docs/workflow-versioning.md).
 */
export const WORKFLOW_INTERCEPTOR_MODULES = WORKFLOW_TRACING_MODULES;
