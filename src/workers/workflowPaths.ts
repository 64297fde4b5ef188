import path from 'node:path';
import { REPO_ROOT } from '../config';

export const WORKFLOWS_PATH = path.join(REPO_ROOT, 'workflows', 'index.ts');
export const BUNDLE_SCRIPT = path.join(REPO_ROOT, 'src', 'workers', 'bundleWorkflows.ts');

/** Whether this is the compiled JavaScript of `npm run build` (dist/src/workers/), not the TypeScript sources. */
export const RUNNING_BUILT = path.extname(__filename) === '.js';

/**
 * The workflow bundles `npm run build` writes at the top of dist/: one without and one with the tracing interceptors,
 * which a bundle carries or not from the moment it is built. Meaningful only when RUNNING_BUILT.
 */
export const PREBUILT_BUNDLES = {
  plain: path.resolve(__dirname, '..', '..', 'workflow-bundle.js'),
  tracing: path.resolve(__dirname, '..', '..', 'workflow-bundle-tracing.js'),
};
