import { execFile } from 'node:child_process';
import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EVERYTHING_ENTRY } from './harness.ts';

const BIN = join(import.meta.dirname, '..', '..', 'bin', 'skillbot.mjs');
let dir: string;
let env: Record<string, string>;

function run(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, ...args], { env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'silent', ...env }, cwd: dir, timeout: 60_000 }, (error, stdout, stderr) =>
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr }),
    );
  });
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'skillbot-mcp-cli-'));
  await chmod(dir, 0o755);
  const config = join(dir, 'skillbot.yaml');
  await writeFile(
    config,
    ['mcpServers:', '  everything:', '    command: node', `    args: [${JSON.stringify(EVERYTHING_ENTRY)}, stdio]`, '  down:', '    type: http', '    url: http://127.0.0.1:9/mcp', '    headers: { Authorization: "Bearer ${DOWN_TOKEN:-x}" }', 'defaults: { mcp: [everything] }', ''].join('\n'),
  );
  // A skill written for public collections: it calls Notion's tools (`Server:tool`) and everything's.
  await mkdir(join(dir, 'skills', 'notes-to-notion'), { recursive: true });
  await writeFile(
    join(dir, 'skills', 'notes-to-notion', 'SKILL.md'),
    '---\nname: notes-to-notion\ndescription: Files meeting notes in Notion.\n---\nSearch with `Notion:notion-search`, then echo with mcp__everything__echo.\n',
  );
  // One in the style of openai/skills' linear skill: bare tool names, and the server named only in its setup step.
  await mkdir(join(dir, 'skills', 'file-tickets'), { recursive: true });
  await writeFile(
    join(dir, 'skills', 'file-tickets', 'SKILL.md'),
    '---\nname: file-tickets\ndescription: Files tickets.\n---\nIf a call fails because the tracker is not connected, run:\n- `codex mcp add tickets --url https://tickets.example/mcp`\n\nTools: `list_tickets`, `create_ticket`.\n',
  );
  // One about writing MCP servers: its prose names none.
  await mkdir(join(dir, 'skills', 'mcp-author'), { recursive: true });
  await writeFile(
    join(dir, 'skills', 'mcp-author', 'SKILL.md'),
    '---\nname: mcp-author\ndescription: Writes MCP servers.\n---\nModern MCP servers use the TypeScript MCP SDK. Use claude mcp add to register it, then test it.\n',
  );
  env = { SKILLBOT_CONFIG: config, STORE_URL: `sqlite://${join(dir, 'state.sqlite')}`, SKILLS_DIRS: join(dir, 'skills') };
});
afterAll(async () => rm(dir, { recursive: true, force: true }));

describe('skillbot mcp', () => {
  it('list: each server with its state and tools; exit 1 when one failed', async () => {
    const { code, stdout } = await run(['mcp', 'list']);
    expect(code).toBe(1);
    expect(stdout).toContain('everything  stdio  connected');
    expect(stdout).toMatch(/tools: .*echo.*get-sum/);
    expect(stdout).toMatch(/^down {2}http {2}failed: the MCP server down could not be reached/m);
    const json = await run(['mcp', 'list', '--json']);
    const parsed = JSON.parse(json.stdout) as { servers: Array<{ name: string; state: string; tools: string[] }> };
    expect(parsed.servers.map((server) => [server.name, server.state])).toEqual([
      ['down', 'failed'],
      ['everything', 'connected'],
    ]);
  }, 60_000);

  it('disconnect: names an unknown server, and says when nobody was connected', async () => {
    expect((await run(['mcp', 'disconnect', 'nope'])).stderr).toContain('no MCP server "nope" is configured (servers: down, everything)');
    const { code, stdout } = await run(['mcp', 'disconnect', 'everything', '--user', 'U1']);
    expect(code).toBe(0);
    expect(stdout).toContain('U1 was not connected to everything.');
  }, 60_000);

  it('doctor: one line per server', async () => {
    const { stdout } = await run(['doctor']);
    expect(stdout).toMatch(/^ok {4}mcp everything: stdio, connected, \d+ tool\(s\)$/m);
    expect(stdout).toMatch(/^FAIL {2}mcp down: the MCP server down could not be reached/m);
  }, 60_000);

  it('skills validate and doctor name a skill that calls tools of a server no world offers', async () => {
    const { stdout } = await run(['skills', 'validate', '--json']);
    const skills = (JSON.parse(stdout) as { skills: Array<{ id: string; warnings: Array<{ code: string; message: string }> }> }).skills;
    const warned = (id: string) => skills.find((one) => one.id === id)!.warnings.filter((warning) => warning.code === 'mcp_server_missing').map((warning) => warning.message);
    expect(warned('file-tickets')).toEqual(["its instructions call tools of the MCP server tickets, which no world offers (mcpServers and a world's mcp in SKILLBOT_CONFIG; docs/mcp.md)"]);
    expect(warned('mcp-author')).toEqual([]);
    const skill = skills.find((one) => one.id === 'notes-to-notion')!;
    expect(skill.warnings).toContainEqual({
      code: 'mcp_server_missing',
      message: "its instructions call tools of the MCP server notion, which no world offers (mcpServers and a world's mcp in SKILLBOT_CONFIG; docs/mcp.md)",
    });
    const doctor = await run(['doctor']);
    expect(doctor.stdout).toMatch(/^warn {2}mcp needs: .*notes-to-notion: its instructions call tools of the MCP server notion, which no world offers/m);
    expect(doctor.stdout).toMatch(/^warn {2}mcp needs: .*file-tickets: its instructions call tools of the MCP server tickets/m);
  }, 60_000);

  it('list: a server started with npx and no network says why it does not answer and what to write instead; the installed bin path connects', async () => {
    const config = join(dir, 'runners.yaml');
    const bin = join(import.meta.dirname, '..', '..', 'node_modules', '.bin', 'mcp-server-everything');
    await writeFile(config, ['mcpServers:', '  fetched: { command: npx, args: ["-y", "@modelcontextprotocol/server-everything"] }', `  installed: { command: ${JSON.stringify(bin)} }`, ''].join('\n'));
    const saved = env;
    env = { ...env, SKILLBOT_CONFIG: config, MCP_TIMEOUT_MS: '3000' };
    try {
      const { stdout } = await run(['mcp', 'list']);
      expect(stdout).toMatch(
        /^fetched {2}stdio {2}failed: the MCP server fetched could not be reached: .+\. npx downloads the package when it starts, and this server has no network: install the package where the bot runs and name its file as the command \(e\.g\. \/opt\/mcp\/node_modules\/\.bin\/<its bin>\)/m,
      );
      expect(stdout).toContain('installed  stdio  connected');
    } finally {
      env = saved;
    }
  }, 60_000);

  it('an unset ${VAR} stops the start with one line naming it', async () => {
    await writeFile(env.SKILLBOT_CONFIG!, 'mcpServers:\n  linear: { type: http, url: "https://x.example/mcp", headers: { Authorization: "Bearer ${LINEAR_TOKEN}" } }\n');
    const { code, stderr } = await run(['mcp', 'list']);
    expect(code).toBe(2);
    expect(stderr.trim()).toBe("skillbot: mcpServers.linear.headers.Authorization uses ${LINEAR_TOKEN}, which is not set in the bot's environment: set it, or remove the server.");
  }, 60_000);
});
