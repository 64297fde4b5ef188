import { extendZodWithOpenApi } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';

// The contract's schemas carry their OpenAPI metadata (`.openapi()`), so zod is extended before any of them is built.
extendZodWithOpenApi(z);

export { z };
