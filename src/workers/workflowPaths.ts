import path from 'node:path';
import { REPO_ROOT } from '../config';

export const WORKFLOWS_PATH = path.join(REPO_ROOT, 'workflows', 'index.ts');
export const BUNDLE_SCRIPT = path.join(REPO_ROOT, 'src', 'workers', 'bundleWorkflows.ts');
