// The house's floors (docs/architecture.md): a folder imports its own floor and the floors below, never one above,
// and no import circle of any length (type imports included). Checked by tests/architecture/boundaries.test.ts
// inside `npm test`, and by hand: npx depcruise src adapters --config .dependency-cruiser.cjs --output-type err

/** Bottom to top. Folders on one floor may import each other (lint's own rules narrow some pairs). */
const FLOORS = [
  ['src/text', 'src/tools', 'src/platform/download.ts'],
  ['src/ops', 'src/config', 'src/keys'],
  ['src/store'],
  // The platform contract's port and sink, and the adapters' keyed state: what chats and turns are written against.
  ['src/chats', 'src/workspace', 'src/platform/port.ts', 'src/platform/adapterState.ts'],
  ['src/exec'],
  ['src/approvals', 'src/skills', 'src/access'],
  ['src/lifecycle', 'src/mcp'],
  ['src/install', 'src/routines', 'src/agent', 'src/model'],
  // The composition: createApp in steps, the CLI, and the narrow Core (with its launchers and index) built from both.
  ['src/app.ts', 'src/appParts.ts', 'src/appTurns.ts', 'src/cli', 'src/platform/core.ts', 'src/platform/launchers.ts', 'src/platform/mcpCommand.ts', 'src/platform/index.ts'],
  ['adapters'],
];

/**
 * The upward imports the house allows, each with its reason (docs/architecture.md lists the same ones). At most
 * three: tests/architecture/boundaries.test.ts holds the count.
 */
const EXCEPTIONS = [
  {
    from: 'src/config/egressAllowSchema.ts',
    to: 'src/exec/addressPolicy.mjs',
    reason: "the egress proxy's own parser checks an egressAllow list, so the config and the proxy can never read it differently",
  },
];

const path = (folders) => `^(${folders.map((folder) => folder.replace(/\./g, '\\.')).join('|')})(/|$)`;

/** One rule a floor: nothing on it imports a floor above, save its written exceptions. */
function floorRules() {
  const rules = [];
  FLOORS.forEach((floor, index) => {
    const above = FLOORS.slice(index + 1).flat();
    if (above.length === 0) return;
    const name = `floor-${floor[0].replace(/^src\//, '')}`;
    const comment = `${floor.join(', ')} may not import a higher floor (${above.join(', ')})`;
    const own = EXCEPTIONS.filter((exception) => new RegExp(path(floor)).test(exception.from.replace(/\\/g, '')));
    rules.push({
      name,
      comment,
      severity: 'error',
      from: { path: path(floor), ...(own.length > 0 ? { pathNot: own.map((exception) => `^${exception.from}$`) } : {}) },
      to: { path: path(above) },
    });
    for (const exception of own) {
      const allowed = `allowed: ${exception.from} -> ${exception.to}${exception.typeOnly ? ' (types only)' : ''}, because ${exception.reason}`;
      const from = { path: `^${exception.from}$` };
      rules.push({ name, comment: `${comment}; ${allowed}`, severity: 'error', from, to: { path: path(above), pathNot: `^${exception.to}$` } });
      if (exception.typeOnly) {
        rules.push({ name, comment: `${comment}; ${allowed}`, severity: 'error', from, to: { path: `^${exception.to}$`, dependencyTypesNot: ['type-only'] } });
      }
    }
  });
  return rules;
}

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'An import circle of any length (type imports count): what both sides need goes into a leaf file.',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    ...floorRules(),
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(node_modules|dist)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    combinedDependencies: false,
  },
};
