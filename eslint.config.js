// @ts-check
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from './eslint.globals.js';

// The core never reaches into a platform (docs/architecture.md).
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
// Chats (ids, history, the queue, leases, stopping) are what the agent runs in: src/chats never imports the agent.
const chatsPatterns = [
  { group: ['**/agent/**', '**/lifecycle/**', '**/skills/**', '**/mcp/**', '**/install/**', '**/workspace/**'], message: 'src/chats holds chats and their queue; the agent uses it, never the reverse.' },
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
// Who may use the bot is decided before a turn exists: src/access reads settings, the store and chats' platform
// types, and reaches no turn, skill, approval, process or workspace.
const accessPatterns = [
  { group: ['**/agent/**', '**/lifecycle/**', '**/skills/**', '**/mcp/**', '**/install/**', '**/workspace/**', '**/approvals/**', '**/exec/**'], message: 'src/access decides who may use the bot, before any turn; it never reaches into turns, skills or their code.' },
];
// Settings are read once at the edge: src/config knows the environment and the config file, never the parts
// that use them (every folder's settings schema, src/config/mcpSettings.ts among them, lives here).
const configPatterns = [
  { group: ['**/agent/**', '**/chats/**', '**/approvals/**', '**/workspace/**', '**/lifecycle/**', '**/ops/**', '**/model/**', '**/skills/**', '**/mcp/**', '**/install/**'], message: 'src/config reads settings; it must not import the parts that use them.' },
];
// The model client is built from settings alone: src/model knows src/config (and ops' check type), nothing of a turn.
const modelPatterns = [
  { group: ['**/agent/**', '**/chats/**', '**/approvals/**', '**/workspace/**', '**/lifecycle/**', '**/skills/**', '**/exec/**', '**/store/**', '**/mcp/**', '**/install/**'], message: 'src/model builds the model client from settings; it must not import the parts of a turn.' },
];
// Only the guarded exec path may start processes (the MCP SDK's stdio client transport, v1's and v2's, spawns its
// server itself).
const processPaths = ['execa', 'node:child_process', 'child_process', '@modelcontextprotocol/sdk/client/stdio.js', '@modelcontextprotocol/client/stdio'].map((name) => ({
  name,
  message: 'Run processes only through src/exec (the one guarded path); a stdio MCP server runs through src/exec/longRunning.ts.',
}));
// MCP is a service the agent calls: src/mcp never reaches into the turn's other parts. What both need (a tool,
// its result, a turn's tool set) is the tool contract, src/tools.
const mcpPatterns = [
  { group: ['**/agent/**'], message: 'src/mcp is called by the agent: what both need is the tool contract (src/tools/contract.ts).' },
  { group: ['**/chats/**', '**/lifecycle/**', '**/workspace/**', '**/skills/**', '**/install/**'], message: 'src/mcp knows servers, tools and sign-ins, not chats, skills or workspaces.' },
];

// A platform is written against one page: the contract (src/platform/index.ts), plus src/text (splitting and
// escaping text every platform shares) and the logger's type. Nothing else of the core, so a platform cannot reach
// a turn's parts (engine, registry, store, installer) around the narrow Core it is given.
const adapterPatterns = [
  { group: ['**/src/**', '!**/src/platform', '!**/src/platform/index.ts', '!**/src/text', '!**/src/text/**', '!**/src/ops', '!**/src/ops/log.ts'], message: 'A platform imports the core only through src/platform/index.ts (and src/text, and the logger type).' },
  { group: ['**/src/ops/log.ts'], allowTypeImports: true, message: 'A platform takes only the logger type; its logger comes from core.logger.' },
];

export default tseslint.config(
  { ignores: ['node_modules/', 'data/', 'coverage/', 'dist/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  // CommonJS config files of tools (.dependency-cruiser.cjs) export through `module`.
  { files: ['**/*.cjs'], languageOptions: { sourceType: 'commonjs', globals: { ...globals, module: 'writable', require: 'readonly' } } },
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
    files: ['src/chats/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { paths: processPaths, patterns: [...corePatterns, ...chatsPatterns, ...approvalsPatterns] }] },
  },
  {
    files: ['src/config/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { paths: processPaths, patterns: [...corePatterns, ...configPatterns] }] },
  },
  {
    files: ['src/model/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { paths: processPaths, patterns: [...corePatterns, ...modelPatterns] }] },
  },
  // One import statement per module: a reader sees at once what a file takes from where. (Import circles of any
  // length are refused by .dependency-cruiser.cjs, run in tests/architecture/boundaries.test.ts.)
  {
    files: ['src/**/*.ts', 'adapters/**/*.ts'],
    rules: { 'no-duplicate-imports': ['error', { allowSeparateTypeImports: false }] },
  },
  // Small files and functions: a reader holds one in their head (docs/architecture.md). Raw lines for a file;
  // a function's lines without blanks and comments.
  {
    files: ['src/**/*.{ts,mjs}', 'adapters/**/*.ts'],
    rules: {
      'max-lines': ['error', { max: 300, skipBlankLines: false, skipComments: false }],
      'max-lines-per-function': ['error', { max: 80, skipBlankLines: true, skipComments: true }],
    },
  },
  {
    files: ['src/workspace/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { paths: processPaths, patterns: [...corePatterns, ...workspacePatterns] }] },
  },
  {
    files: ['src/mcp/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { paths: processPaths, patterns: [...corePatterns, ...approvalsPatterns, ...mcpPatterns] }] },
  },
  {
    files: ['src/access/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { paths: processPaths, patterns: [...corePatterns, ...accessPatterns] }] },
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
    // adapters/main.ts is the composition root (the CLI with the platforms): it alone may import the core's CLI.
    ignores: ['adapters/main.ts'],
    rules: { 'no-restricted-imports': ['error', { paths: processPaths, patterns: adapterPatterns }] },
  },
  {
    files: ['adapters/main.ts'],
    rules: { 'no-restricted-imports': ['error', { paths: processPaths, patterns: approvalsPatterns }] },
  },
  // Tools' CommonJS configs (dependency-cruiser reads .dependency-cruiser.cjs).
  { files: ['**/*.cjs'], languageOptions: { sourceType: 'commonjs', globals: { module: 'writable', require: 'readonly' } } },
);
