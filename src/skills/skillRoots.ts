// What a SKILLS_DIRS entry stands for. Teams keep skills the way Claude Code reads them, so an entry may be:
// a folder of skills (searched as it is), a Claude Code project (its `.claude/skills`), a plugin (its `skills/`,
// or the paths its `.claude-plugin/plugin.json` names) or a plugin marketplace checkout
// (`.claude-plugin/marketplace.json` listing plugins, each with its `skills/` or the skill paths it names).
// Each becomes one or more scan roots in order, so the registry's clash rule (earlier root wins) still holds:
// an entry's plugins rank in the order the marketplace lists them.
import { readFile, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { z } from 'zod';

/** One folder the registry scans, and where it came from (for `skills list`). */
export interface SkillRoot {
  path: string;
  /** `folder`, `Claude Code project`, `plugin NAME`, `plugin NAME (marketplace M)`. */
  origin: string;
}

const pathList = z.union([z.string(), z.array(z.string())]).optional();
const pluginJson = z.object({ name: z.string().optional(), skills: pathList }).passthrough();
const marketplaceJson = z
  .object({
    name: z.string().optional(),
    metadata: z.object({ pluginRoot: z.string().optional() }).passthrough().optional(),
    plugins: z.array(
      z.object({ name: z.string(), source: z.unknown(), skills: pathList }).passthrough(),
    ),
  })
  .passthrough();

async function isDir(path: string): Promise<boolean> {
  return stat(path).then((s) => s.isDirectory(), () => false);
}

async function readJson(path: string): Promise<{ found: false } | { found: true; value: unknown; error?: string }> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch {
    return { found: false };
  }
  try {
    return { found: true, value: JSON.parse(text) as unknown };
  } catch (err) {
    return { found: true, value: undefined, error: `not JSON: ${err instanceof Error ? err.message : String(err)}` };
  }
}

/** A relative path that stays inside `base` (marketplace and plugin files are data, not a way out). */
function inside(base: string, relative: string): string | undefined {
  if (relative.startsWith('/') || relative.split(/[\\/]/).includes('..')) return undefined;
  return resolve(base, relative);
}

/** The skill folders (or folders of skills) a plugin at `dir` offers: the paths it names, else `skills/`. */
async function pluginRoots(dir: string, named: string | string[] | undefined, origin: string, problems: string[]): Promise<SkillRoot[]> {
  if (named !== undefined) {
    const roots: SkillRoot[] = [];
    for (const path of Array.isArray(named) ? named : [named]) {
      const full = inside(dir, path);
      if (full === undefined) problems.push(`${origin}: skill path "${path}" leaves the plugin folder; ignored`);
      else roots.push({ path: full, origin });
    }
    return roots;
  }
  const skills = join(dir, 'skills');
  return (await isDir(skills)) ? [{ path: skills, origin }] : [];
}

async function marketplaceRoots(dir: string, value: unknown, problems: string[]): Promise<SkillRoot[]> {
  const file = join(dir, '.claude-plugin/marketplace.json');
  const parsed = marketplaceJson.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    problems.push(`${file}: ${issue?.path.join('.') || 'root'}: ${issue?.message ?? 'invalid'}; read as a plain folder`);
    return [{ path: dir, origin: 'folder' }];
  }
  const market = parsed.data.name ?? dir;
  const pluginBase = inside(dir, parsed.data.metadata?.pluginRoot ?? '.') ?? dir;
  const roots: SkillRoot[] = [];
  for (const plugin of parsed.data.plugins) {
    const origin = `plugin ${plugin.name} (marketplace ${market})`;
    if (typeof plugin.source !== 'string') {
      problems.push(`${file}: plugin ${plugin.name}: its source is not in this checkout; skipped`);
      continue;
    }
    const pluginDir = inside(pluginBase, plugin.source);
    if (pluginDir === undefined) {
      problems.push(`${file}: plugin ${plugin.name}: source "${plugin.source}" leaves the marketplace folder; skipped`);
      continue;
    }
    let named = plugin.skills;
    if (named === undefined) {
      const manifest = await readJson(join(pluginDir, '.claude-plugin/plugin.json'));
      if (manifest.found) named = pluginJson.safeParse(manifest.value).data?.skills;
    }
    roots.push(...(await pluginRoots(pluginDir, named, origin, problems)));
  }
  return roots;
}

/** One SKILLS_DIRS entry as scan roots. Never throws: problems are described in `problems`. */
async function expandOne(entry: string, problems: string[]): Promise<SkillRoot[]> {
  const dir = resolve(entry);
  const market = await readJson(join(dir, '.claude-plugin/marketplace.json'));
  if (market.found) {
    if (market.error === undefined) return marketplaceRoots(dir, market.value, problems);
    problems.push(`${join(dir, '.claude-plugin/marketplace.json')}: ${market.error}; read as a plain folder`);
    return [{ path: dir, origin: 'folder' }];
  }
  const plugin = await readJson(join(dir, '.claude-plugin/plugin.json'));
  if (plugin.found) {
    const manifest = pluginJson.safeParse(plugin.value).data;
    return pluginRoots(dir, manifest?.skills, `plugin ${manifest?.name ?? dir}`, problems);
  }
  const project = join(dir, '.claude/skills');
  if (await isDir(project)) return [{ path: project, origin: 'Claude Code project' }];
  return [{ path: dir, origin: 'folder' }];
}

/** Every SKILLS_DIRS entry as scan roots, in priority order; a folder named twice is scanned once. */
export async function expandSkillRoots(entries: readonly string[]): Promise<{ roots: SkillRoot[]; problems: string[] }> {
  const problems: string[] = [];
  const roots: SkillRoot[] = [];
  const seen = new Set<string>();
  for (const entry of entries) {
    for (const root of await expandOne(entry, problems)) {
      if (seen.has(root.path)) continue;
      seen.add(root.path);
      roots.push(root);
    }
  }
  return { roots, problems };
}
