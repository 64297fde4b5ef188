/**
 * `node --import tsx src/workers/bundleWorkflows.ts <out.js>`: bundles the workflows with their interceptor modules
 * (webpack, through the Temporal SDK) into one file. `npm run build` runs its compiled form to write dist/'s bundles; from the sources the workflow
 * worker runs it as a child process at start, so the bundler's few hundred MB are freed with that process instead of
 * staying in the worker's heap for its lifetime.
 */
import { writeFileSync } from 'node:fs';
import { bundleWorkflowCode, DefaultLogger } from '@temporalio/worker';
import { WORKFLOW_INTERCEPTOR_MODULES, WORKFLOWS_PATH } from './workflowPaths';

async function main(out: string | undefined) {
  if (!out) throw new Error('usage: bundleWorkflows.ts <out.js>');
  const { code } = await bundleWorkflowCode({
    workflowsPath: WORKFLOWS_PATH,
    workflowInterceptorModules: WORKFLOW_INTERCEPTOR_MODULES,
    logger: new DefaultLogger('WARN'),
  });
  writeFileSync(out, code);
}

main(process.argv[2]).catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
