/** The claim generator named in every manifest: genmedia and the version of this release (package.json). */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from '../config';

export const CLAIM_GENERATOR = {
  name: 'genmedia',
  version: (JSON.parse(readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string }).version,
};
