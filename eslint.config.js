// @ts-check
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from './eslint.globals.js';

// The dependency rule of DESIGN.md: the core never reaches into a platform.
const corePatterns = [
  { group: ['**/adapters/**'], message: 'src/ is the core: it must not import adapters/.' },
  { group: ['@slack/*', 'discord.js', '@discordjs/*'], message: 'src/ is the core: platform SDKs belong in adapters/.' },
];
// Only the guarded exec path may start processes.
const processPaths = ['execa', 'node:child_process', 'child_process'].map((name) => ({
  name,
  message: 'Run processes only through src/exec (the one guarded path).',
}));

export default tseslint.config(
  { ignores: ['node_modules/', 'data/', 'coverage/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
    },
  },
  {
    files: ['src/**/*.ts'],
    ignores: ['src/exec/**'],
    rules: { 'no-restricted-imports': ['error', { paths: processPaths, patterns: corePatterns }] },
  },
  {
    files: ['src/exec/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: corePatterns }] },
  },
  {
    files: ['adapters/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { paths: processPaths }] },
  },
);
