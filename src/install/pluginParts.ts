// What a fetched Claude Code plugin holds besides its skills: hooks (hooks/hooks.json, or `hooks` in plugin.json),
// slash commands, subagents and MCP servers. skillbot installs skills only, so none of these is carried or run; the
// card names them, so nobody approves obra/superpowers expecting its SessionStart hook (which puts the
// using-superpowers skill into every session) to run here. Read as data: nothing in them is followed out of the tree.
import { readdir, readFile } from 'node:fs/promises';
import { join, relative, resolve } from 'node:path';
import { z } from 'zod';

/** Hook entries named per event at most; the rest are counted. */
const MAX_HOOKS_SHOWN = 20;

const marketplace = z.object({ metadata: z.object({ pluginRoot: z.string().optional() }).passthrough().optional(), plugins: z.array(z.object({ source: z.unknown() }).passthrough()) }).passthrough();
const manifest = z.object({ hooks: z.unknown().optional(), mcpServers: z.unknown().optional() }).passthrough();
const hooksFile = z.object({ hooks: z.record(z.string(), z.array(z.object({ matcher: z.string().optional(), hooks: z.array(z.object({ command: z.string().optional() }).passthrough()).optional() }).passthrough())) }).passthrough();
const mcpFile = z.object({ mcpServers: z.record(z.string(), z.unknown()) }).passthrough();

async function json(path: string): Promise<unknown> {
  try {
    return JSON.parse(await readFile(path, 'utf8')) as unknown;
  } catch {
    return undefined;
  }
}

/** A path inside `base` (no absolute path, no `..`), as the registry reads marketplace sources. */
function inside(base: string, path: string): string | undefined {
  return path.startsWith('/') || path.split(/[\\/]/).includes('..') ? undefined : resolve(base, path);
}

/** The plugin folders of a staged tree: the ones its marketplace lists that are in the tree, and the top itself. */
async function pluginDirs(top: string): Promise<string[]> {
  const dirs = new Set<string>();
  const market = marketplace.safeParse(await json(join(top, '.claude-plugin/marketplace.json')));
  if (market.success) {
    const base = inside(top, market.data.metadata?.pluginRoot ?? '.') ?? top;
    for (const plugin of market.data.plugins) {
      const dir = typeof plugin.source === 'string' ? inside(base, plugin.source) : undefined;
      if (dir !== undefined) dirs.add(dir);
    }
  }
  if ((await json(join(top, '.claude-plugin/plugin.json'))) !== undefined) dirs.add(resolve(top));
  return [...dirs];
}

async function countFiles(dir: string): Promise<number> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true }).catch(() => []);
  return entries.filter((entry) => entry.isFile()).length;
}

/** One line per hook (`Event → command`), the first MAX_HOOKS_SHOWN of them. */
function hookLines(value: unknown): string[] {
  const parsed = hooksFile.safeParse(value);
  if (!parsed.success) return ['(a hooks file skillbot cannot read)'];
  const all = Object.entries(parsed.data.hooks).flatMap(([event, groups]) =>
    groups.flatMap((group) => (group.hooks ?? []).map((hook) => `${event}${group.matcher ? ` (${group.matcher})` : ''} → ${hook.command ?? '(not a command)'}`)),
  );
  return all.length > MAX_HOOKS_SHOWN ? [...all.slice(0, MAX_HOOKS_SHOWN), `(and ${all.length - MAX_HOOKS_SHOWN} more)`] : all;
}

/**
 * The plugin parts of the tree at `top` that an install leaves behind, a line each, paths relative to `top`
 * (empty for a tree with no plugin, or a plugin of skills alone).
 */
export async function pluginPartsLeftOut(top: string): Promise<string[]> {
  const lines: string[] = [];
  for (const dir of await pluginDirs(top)) {
    const at = (path: string) => relative(top, join(dir, path)).split('\\').join('/');
    const meta = manifest.safeParse(await json(join(dir, '.claude-plugin/plugin.json'))).data;
    const standard = join(dir, 'hooks/hooks.json');
    const hooks = await json(standard);
    if (hooks !== undefined) lines.push(...hookLines(hooks).map((line) => `hook ${line} (${at('hooks/hooks.json')})`));
    const hooksPath = meta?.hooks;
    if (typeof hooksPath === 'string') {
      const named = inside(dir, hooksPath);
      if (named === undefined) lines.push(`hooks file ${JSON.stringify(hooksPath)}, named by plugin.json: outside the plugin, not read`);
      else if (named !== standard) lines.push(...hookLines(await json(named)).map((line) => `hook ${line} (${at(relative(dir, named))}, named by plugin.json)`));
    } else if (meta?.hooks !== undefined) {
      // Inline in plugin.json: the hooks file's shape, with or without its `hooks` wrapper.
      const inline = typeof meta.hooks === 'object' && meta.hooks !== null && 'hooks' in meta.hooks ? meta.hooks : { hooks: meta.hooks };
      lines.push(...hookLines(inline).map((line) => `hook ${line} (${at('.claude-plugin/plugin.json')})`));
    }
    for (const [folder, what] of [['commands', 'slash commands'], ['agents', 'subagents']] as const) {
      const count = await countFiles(join(dir, folder));
      if (count > 0) lines.push(`${what}: ${at(folder)}/ (${count} file${count === 1 ? '' : 's'})`);
    }
    const fromFile = Object.keys(mcpFile.safeParse(await json(join(dir, '.mcp.json'))).data?.mcpServers ?? {});
    if (fromFile.length > 0) lines.push(`MCP servers: ${fromFile.join(', ')} (${at('.mcp.json')})`);
    const inManifest = Object.keys(mcpFile.safeParse({ mcpServers: meta?.mcpServers }).data?.mcpServers ?? {});
    if (inManifest.length > 0) lines.push(`MCP servers: ${inManifest.join(', ')} (${at('.claude-plugin/plugin.json')})`);
  }
  return lines;
}
