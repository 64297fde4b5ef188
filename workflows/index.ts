/** Every workflow the `jobs` task queue runs. */
export { jobWorkflow } from './job';
