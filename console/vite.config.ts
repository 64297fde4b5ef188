import path from 'node:path';
import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

const here = path.dirname(fileURLToPath(import.meta.url));

/** Served by the API under /console (same origin, so no CORS); `npm test` and production use the built files. */
export default defineConfig({
  root: here,
  base: '/console/',
  plugins: [react()],
  resolve: {
    // The SDK from its sources, as the API's own tests use it: no separate build step.
    alias: { '@genmedia/client': path.join(here, '../clients/typescript/src/index.ts') },
  },
  build: {
    outDir: path.join(here, 'dist'),
    emptyOutDir: true,
    // The SDK reads file paths with node:fs only when given a path, never in the browser.
    rollupOptions: { external: ['node:fs/promises', 'node:path'] },
  },
});
