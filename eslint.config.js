// @ts-check
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from './eslint.globals.js';

// The dependency rule of DESIGN.md: the core never reaches into a platform.
const corePatterns = [
  { group: ['**/adapters/**'], message: 'src/ is the core: it must not import adapters/.' },
  { group: ['@slack/*', 'discord.js', '@discordjs/*'], message: 'src/ is the core: platform SDKs belong in adapters/.' },
];
// Dependencies point one way through the core: the agent drives the lifecycle steps, never the reverse.
const lifecyclePatterns = [
  { group: ['**/agent/**'], message: 'src/lifecycle runs steps the agent asks for: it must not import src/agent.' },
];
// Approvals are one module with one entry: outside src/approvals, import src/approvals/index.ts only.
const approvalsPatterns = [
  { group: ['**/approvals/*', '!**/approvals/index.ts'], message: 'Import approvals from src/approvals/index.ts, the module\'s one entry.' },
];
// A chat's files are a port the agent uses (and exec mounts): src/workspace never reaches back into the turn.
const workspacePatterns = [
  { group: ['**/agent/**', '**/lifecycle/**', '**/chats/**', '**/approvals/**'], message: "src/workspace holds a chat's files; the agent uses it, never the reverse." },
];
// Installing fetches and reads skills on the bot and never runs them: src/install reaches no turn, no chat and no
// platform; the one thing it runs (an operator's policy command) goes through src/exec like everything else.
const installPatterns = [
  { group: ['**/agent/**', '**/lifecycle/**', '**/chats/**', '**/workspace/**'], message: 'src/install fetches, scans and pins skills; it never reaches into turns, chats or workspaces.' },
];
// Only the guarded exec path may start processes.
const processPaths = ['execa', 'node:child_process', 'child_process'].map((name) => ({
  name,
  message: 'Run processes only through src/exec (the one guarded path).',
}));

export default tseslint.config(
  { ignores: ['node_modules/', 'data/', 'coverage/', 'dist/'] },
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
    ignores: ['src/exec/**', 'src/approvals/**'],
    rules: { 'no-restricted-imports': ['error', { paths: processPaths, patterns: [...corePatterns, ...approvalsPatterns] }] },
  },
  {
    files: ['src/approvals/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { paths: processPaths, patterns: corePatterns }] },
  },
  {
    files: ['src/lifecycle/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { paths: processPaths, patterns: [...corePatterns, ...lifecyclePatterns, ...approvalsPatterns] }] },
  },
  {
    files: ['src/workspace/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { paths: processPaths, patterns: [...corePatterns, ...workspacePatterns] }] },
  },
  {
    files: ['src/install/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { paths: processPaths, patterns: [...corePatterns, ...approvalsPatterns, ...installPatterns] }],
      // Fetched content is data: nothing in it is ever evaluated.
      'no-eval': 'error',
      'no-new-func': 'error',
    },
  },
  {
    files: ['src/exec/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [...corePatterns, ...approvalsPatterns] }] },
  },
  {
    files: ['adapters/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { paths: processPaths, patterns: approvalsPatterns }] },
  },
);
