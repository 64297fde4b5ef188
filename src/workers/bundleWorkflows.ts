/**
 * `node --import tsx src/workers/bundleWorkflows.ts <out.js> [<inputs.json>]`: bundles the workflows with their
 * interceptor modules (webpack, through the Temporal SDK) into one file, and, given a second path, writes there what
 * the bundle was made of (src/workers/workflowBundleCache.ts). `npm run build` runs its compiled form to write dist/'s
 * bundles; from the sources the workflow worker runs it as a child process at start, so the bundler's few hundred MB
 * are freed with that process instead of staying in the worker's heap for its lifetime.
 */
import { writeFileSync } from 'node:fs';
import { bundleWorkflowCode, DefaultLogger } from '@temporalio/worker';
import { bundleInputsOf, type BundleInputs } from './workflowBundleCache';
import { WORKFLOW_INTERCEPTOR_MODULES, WORKFLOWS_PATH } from './workflowPaths';

async function main(out: string | undefined, inputsOut: string | undefined) {
  if (!out) throw new Error('usage: bundleWorkflows.ts <out.js> [<inputs.json>]');
  let inputs: BundleInputs | undefined;
  const { code } = await bundleWorkflowCode({
    workflowsPath: WORKFLOWS_PATH,
    workflowInterceptorModules: WORKFLOW_INTERCEPTOR_MODULES,
    logger: new DefaultLogger('WARN'),
    webpackConfigHook: (config) => ({
      ...config,
      plugins: [
        ...(config.plugins ?? []),
        {
          apply(compiler) {
            compiler.hooks.done.tap('genmedia-bundle-inputs', (stats) => {
              inputs = bundleInputsOf(stats.compilation.fileDependencies, stats.compilation.missingDependencies);
            });
          },
        },
      ],
    }),
  });
  writeFileSync(out, code);
  if (inputsOut) {
    if (!inputs) throw new Error('the bundler did not say what it read');
    writeFileSync(inputsOut, JSON.stringify(inputs));
  }
}

main(process.argv[2], process.argv[3]).catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
