// What a plugin holds besides skills, named on the install card under "Not carried": a marketplace's plugins,
// hooks inline in plugin.json or in a file it names, MCP servers from .mcp.json and plugin.json. Read as data.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { pluginPartsLeftOut } from '../../src/install/pluginParts.ts';

const dirs: string[] = [];
afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

function tree(files: Record<string, unknown>): string {
  const top = mkdtempSync(join(tmpdir(), 'skillbot-plugin-parts-'));
  dirs.push(top);
  for (const [path, value] of Object.entries(files)) {
    mkdirSync(dirname(join(top, path)), { recursive: true });
    writeFileSync(join(top, path), typeof value === 'string' ? value : JSON.stringify(value));
  }
  return top;
}

describe('plugin parts left out of an install', () => {
  it("names a marketplace plugin's inline hooks, its hooks file, and its MCP servers, with where each is", async () => {
    const top = tree({
      '.claude-plugin/marketplace.json': { name: 'm', plugins: [{ name: 'p', source: './plugins/p' }, { name: 'far', source: '../elsewhere' }] },
      'plugins/p/.claude-plugin/plugin.json': { name: 'p', hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'check.sh' }] }] }, mcpServers: { db: { command: 'db-server' } } },
      'plugins/p/.mcp.json': { mcpServers: { search: { url: 'https://example.com/mcp' } } },
      'plugins/p/skills/a/SKILL.md': '---\nname: a\ndescription: A.\n---\n',
    });
    expect(await pluginPartsLeftOut(top)).toEqual([
      'hook PreToolUse (Bash) → check.sh (plugins/p/.claude-plugin/plugin.json)',
      'MCP servers: search (plugins/p/.mcp.json)',
      'MCP servers: db (plugins/p/.claude-plugin/plugin.json)',
    ]);
  });

  it('reads a hooks file plugin.json names, says so of one outside the plugin, and nothing of a plain folder', async () => {
    const named = tree({
      '.claude-plugin/plugin.json': { name: 'p', hooks: './config/hooks.json' },
      'config/hooks.json': { hooks: { Stop: [{ hooks: [{ type: 'command', command: 'bye.sh' }] }] } },
    });
    expect(await pluginPartsLeftOut(named)).toEqual(['hook Stop → bye.sh (config/hooks.json, named by plugin.json)']);
    const outside = tree({ '.claude-plugin/plugin.json': { name: 'p', hooks: '../../etc/hooks.json' } });
    expect(await pluginPartsLeftOut(outside)).toEqual(['hooks file "../../etc/hooks.json", named by plugin.json: outside the plugin, not read']);
    expect(await pluginPartsLeftOut(tree({ 'skills/a/SKILL.md': '---\nname: a\ndescription: A.\n---\n' }))).toEqual([]);
  });
});
