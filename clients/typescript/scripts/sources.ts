import openapiTS, { astToString, COMMENT_HEADER } from 'openapi-typescript';
import '../../../src/api/app';
import { buildOpenApiDocument } from '../../../src/api/openapi';

/** The server URL written into the SDK's copy of the document: `npm run dev`'s default address. */
const DEFAULT_SERVER_URL = 'http://localhost:3000';

/** The generated files of the SDK, by path relative to `clients/typescript/`. */
export async function generateSdkSources(): Promise<Record<string, string>> {
  const document = buildOpenApiDocument(DEFAULT_SERVER_URL);
  const types = await openapiTS(document as never, { alphabetize: false });
  return {
    'openapi.json': JSON.stringify(document, null, 2) + '\n',
    'src/generated/openapi.ts': COMMENT_HEADER + astToString(types),
  };
}
