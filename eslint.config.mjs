// @ts-check
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import { builtinModules } from 'node:module';
import globals from 'globals';
import reactHooks from 'eslint-plugin-react-hooks';

const nodeBuiltins = [...builtinModules, ...builtinModules.map((m) => `node:${m}`)];

export default tseslint.config(
  { ignores: ['node_modules/**', '.data/**', '.test-data/**', 'dist/**', 'clients/typescript/dist/**', 'clients/typescript/.build-*/**', 'coverage/**', 'test/workflows/histories/**', 'console/dist/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-require-imports': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    // The console runs in the browser.
    files: ['console/src/**/*.{ts,tsx}'],
    languageOptions: { globals: { ...globals.browser } },
    plugins: { 'react-hooks': reactHooks },
    rules: reactHooks.configs.recommended.rules,
  },
  {
    // Workflows are replayed: only deterministic code may be imported, activities only as types.
    files: ['workflows/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          paths: [
            ...nodeBuiltins.map((name) => ({ name, message: 'Node built-ins are not deterministic; use @temporalio/workflow APIs.' })),
            ...['@temporalio/client', '@temporalio/worker', '@temporalio/activity', '@prisma/client', 'pg', 'minio', 'express', 'pino', 'sharp'].map(
              (name) => ({ name, message: 'Workflows may import only @temporalio/workflow and pure shared modules.' }),
            ),
          ],
          patterns: [
            { group: ['**/activities', '**/activities/**'], allowTypeImports: true, message: 'Import activities with `import type` and proxyActivities.' },
            { group: ['**/db/**', '**/storage/**', '**/api/**', '**/providers/**', '**/config'], message: 'Workflows must not import I/O modules.' },
          ],
        },
      ],
    },
  },
);
