// @ts-check
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';
import reactHooks from 'eslint-plugin-react-hooks';

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
    // Workflows are replayed, so they may import only what is deterministic: an allow-list. Activities only as types.
    files: ['workflows/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '^(?!(@temporalio/(workflow|common)|\\./[^/]+|\\.\\./src/contracts/workflows/[^/]+|\\.\\./src/shared/[^/]+|\\.\\./activities(/[^/]+)?)$)',
              message: 'Workflows may import only @temporalio/workflow, @temporalio/common, the workflow contracts (src/contracts/workflows), the pure shared modules (src/shared) and sibling workflow files.',
            },
            { regex: '^\\.\\./activities(/|$)', allowTypeImports: true, message: 'Import activities with `import type` and proxyActivities.' },
          ],
        },
      ],
    },
  },
  {
    // What workflows import must itself be deterministic: the contracts and shared modules import only each other.
    files: ['src/contracts/workflows/**/*.ts', 'src/shared/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '^(?!(@temporalio/(workflow|common)|\\./[^/]+|\\.\\./\\.\\./shared/[^/]+|\\.\\./contracts/workflows/[^/]+)$)',
              message: 'Workflow contracts and shared modules are bundled into the workflows: import only @temporalio/workflow, @temporalio/common and each other.',
            },
          ],
        },
      ],
    },
  },
);
