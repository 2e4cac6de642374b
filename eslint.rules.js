// @ts-check
// The project's own lint rules (a local plugin): what the layout in docs/architecture.md relies on.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

const SPECIFIER = /(?:^|\n)\s*(?:import|export)\b[^'"]*?from\s*['"](\.{1,2}\/[^'"]+)['"]/g;
/** @type {Map<string, string[]>} */
const importsOf = new Map();

/**
 * The files `file` imports by relative path, resolved (read once per lint run).
 * @param {string} file
 * @returns {string[]}
 */
function relativeImports(file) {
  let found = importsOf.get(file);
  if (found === undefined) {
    const text = existsSync(file) ? readFileSync(file, 'utf8') : '';
    found = [...text.matchAll(SPECIFIER)].map((match) => resolve(dirname(file), match[1] ?? ''));
    importsOf.set(file, found);
  }
  return found;
}

/** @type {import('eslint').Rule.RuleModule} */
const noMutualImport = {
  meta: {
    type: 'problem',
    docs: { description: 'Two files never import each other: one of them holds what both need, or a leaf file does.' },
    schema: [],
  },
  create(context) {
    const self = resolve(context.filename);
    /** @param {import('estree').Node & { source?: import('estree').Literal | null }} node */
    const check = (node) => {
      const source = node.source?.value;
      if (typeof source !== 'string' || !source.startsWith('.')) return;
      const target = resolve(dirname(self), source);
      if (relativeImports(target).includes(self)) {
        context.report({ node, message: `${source} imports this file too: move what both need into one of them, or into a leaf file both import.` });
      }
    };
    return { ImportDeclaration: check, ExportNamedDeclaration: check, ExportAllDeclaration: check };
  },
};

export default { rules: { 'no-mutual-import': noMutualImport } };
