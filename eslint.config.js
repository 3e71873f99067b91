const tseslint = require('typescript-eslint');
const nodeBuiltins = require('node:module').builtinModules;

// Workflow code runs in Temporal's deterministic sandbox: no Node built-ins, no I/O libraries.
const bannedInWorkflows = [
  ...nodeBuiltins,
  ...nodeBuiltins.map((m) => `node:${m}`),
  'execa',
  'tar-stream',
  '@temporalio/client',
  '@temporalio/worker',
  '@temporalio/activity',
];

module.exports = tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'coverage/**'] },
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    files: ['src/workflows/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: bannedInWorkflows.map((name) => ({
            name,
            message: 'Workflow code runs in the Temporal sandbox: do I/O in an activity instead.',
          })),
          patterns: [
            { group: ['**/adapters/**', '**/activities/**'], allowTypeImports: true, message: 'Workflows may import activities and adapters only with `import type`.' },
          ],
        },
      ],
      'no-restricted-globals': ['error', 'setTimeout', 'setInterval', 'fetch', 'process'],
    },
  },
);
