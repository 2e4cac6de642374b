import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, worldSettings } from '../../src/config/config.ts';

async function configWith(yaml: string, env: Record<string, string> = {}) {
  const dir = await mkdtemp(join(tmpdir(), 'skillbot-mcp-config-'));
  const file = join(dir, 'skillbot.yaml');
  await writeFile(file, yaml);
  return () => loadConfig({ SKILLBOT_CONFIG: file, ...env });
}

describe('mcpServers in SKILLBOT_CONFIG', () => {
  it("reads Claude Code's .mcp.json shapes, with ${VAR} from the bot's environment", async () => {
    const load = await configWith(
      [
        'mcpServers:',
        '  linear:',
        '    type: http',
        '    url: https://mcp.example.com/mcp',
        '    headers: { Authorization: "Bearer ${LINEAR_TOKEN}" }',
        '  local:',
        '    command: node',
        '    args: [/opt/server.js, "--region=${REGION:-eu}"]',
        '    env: { API_KEY: "${LOCAL_KEY}" }',
        '  legacy: { type: sse, url: "http://10.0.0.5:8080/sse" }',
        'defaults: { mcp: [local], mcpNoApproval: ["mcp__local__*"] }',
        'worlds:',
        "  'slack:T1:C1': { mcp: ['*'], mcpNoApproval: [mcp__linear__search] }",
        'agent: { mcpToolBudgetChars: 5000 }',
      ].join('\n'),
      { LINEAR_TOKEN: 'lin-123', LOCAL_KEY: 'k', MCP_TIMEOUT_MS: '5000', PUBLIC_URL: 'https://bot.example.com/' },
    );
    const config = load();
    expect(config.mcp.servers).toEqual([
      { name: 'legacy', type: 'sse', url: 'http://10.0.0.5:8080/sse', headers: {} },
      { name: 'linear', type: 'http', url: 'https://mcp.example.com/mcp', headers: { Authorization: 'Bearer lin-123' } },
      { name: 'local', type: 'stdio', command: 'node', args: ['/opt/server.js', '--region=eu'], env: { API_KEY: 'k' } },
    ]);
    expect(config.mcp.timeoutMs).toBe(5000);
    expect(config.mcp.publicUrl).toBe('https://bot.example.com');
    expect(config.agent.mcpToolBudgetChars).toBe(5000);
    expect(worldSettings(config, 'slack:T1:C1')).toMatchObject({ mcp: ['*'], mcpNoApproval: ['mcp__local__*', 'mcp__linear__search'] });
    expect(worldSettings(config, 'slack:T1:C2')).toMatchObject({ mcp: ['local'], mcpNoApproval: ['mcp__local__*'] });
  });

  it('stops the start with one line naming an unset variable', async () => {
    const load = await configWith('mcpServers:\n  linear: { type: http, url: "https://x.example/mcp", headers: { Authorization: "Bearer ${LINEAR_TOKEN}" } }\n');
    expect(load).toThrow(ConfigError);
    expect(load).toThrow("mcpServers.linear.headers.Authorization uses ${LINEAR_TOKEN}, which is not set in the bot's environment: set it, or remove the server.");
  });

  it('refuses a world naming a server that is not configured', async () => {
    const load = await configWith("mcpServers:\n  linear: { type: http, url: 'https://x.example/mcp' }\nworlds:\n  'slack:T1:C1': { mcp: [lineaer] }\n");
    expect(load).toThrow('worlds.slack:T1:C1.mcp names "lineaer", which is not in mcpServers (servers: linear).');
  });

  it('refuses a bad server name, and a world default of none', async () => {
    expect(await configWith('mcpServers:\n  Bad Name: { command: node }\n')).toThrow('mcpServers: "Bad Name" is not a server name (1-32 of a-z, 0-9, _ and -).');
    const config = (await configWith('mcpServers:\n  one: { command: node }\n'))();
    expect(worldSettings(config, 'terminal:local').mcp).toEqual([]);
    expect(config.mcp.publicUrl).toBe('http://localhost:3000');
    expect(config.mcp.timeoutMs).toBe(60_000);
  });
});
