/**
 * Regenerates the SDK's types from the API's OpenAPI document: `npm run sdk:generate` at the repository root.
 * `openapi.json` is the document as the server builds it; `src/generated/openapi.ts` is its types, written by
 * openapi-typescript. A test fails when either differs from what this script would write.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { generateSdkSources } from './sources';

const root = path.resolve(__dirname, '..');
const sources = generateSdkSources();
sources.then(
  (files) => {
    for (const [relative, text] of Object.entries(files)) {
      writeFileSync(path.join(root, relative), text);
      console.log(`wrote clients/typescript/${relative}`);
    }
  },
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
