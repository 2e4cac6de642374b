// Issue 34, credentials end to end from a stdio MCP server: a server of our own, in the sandbox with its world's
// network and credentials, makes a real HTTPS request with the placeholder to a server outside the host (a network
// namespace, its own CA, which the bot trusts); the egress proxy terminates TLS with the installation CA, which the
// server trusts, and the far server receives the real value. The server (and so the model) only ever holds the
// placeholder: no model request carries the value.
import { createHash } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { realpathSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveMcpServers } from '../../src/config/mcpSettings.ts';
import { stepsBrain, textReply, toolUseReply } from '../fakes/anthropic.ts';
import { type FakeDns, startFakeDns } from '../fakes/dnsServer.ts';
import { openTestNetns, type TestNetns } from '../exec/testNetns.ts';
import { type McpHarness, startMcpHarness } from './harness.ts';

const SDK = realpathSync(path.join(import.meta.dirname, '..', '..', 'node_modules', '@modelcontextprotocol', 'sdk'));
const SERVER = path.join(import.meta.dirname, 'fixtures', 'credentialServer.mjs');
const SECRET = 'mcp-https-secret-8086';

let netns: TestNetns;
let dns: FakeDns;
let dir: string;
let bot: McpHarness;
const savedExtra = process.env.NODE_EXTRA_CA_CERTS;
beforeAll(async () => {
  netns = await openTestNetns();
  dns = await startFakeDns({ 'api.example.test': netns.address });
  // The bot trusts the outside server's CA, as an operator's NODE_EXTRA_CA_CERTS would.
  dir = await mkdtemp(path.join(os.tmpdir(), 'skillbot-mcp-cred-'));
  await writeFile(path.join(dir, 'outside-ca.pem'), netns.cert);
  process.env.NODE_EXTRA_CA_CERTS = path.join(dir, 'outside-ca.pem');
  bot = await startMcpHarness({}, { mcpNoApproval: ['mcp__credential__call'], network: ['credential'] }, (config) => {
    config.mcp.servers = resolveMcpServers({ credential: { command: 'node', args: [SERVER, SDK] } }, {});
    config.sandbox.egressDnsServers = [dns.server];
    config.defaults.egressAllow = [netns.subnet];
    config.defaults.credentials = [{ host: 'api.example.test', header: 'Authorization', value: `Bearer ${SECRET}`, env: 'API_TOKEN' }];
  });
}, 60_000);
afterAll(async () => {
  await bot?.close();
  if (savedExtra === undefined) delete process.env.NODE_EXTRA_CA_CERTS;
  else process.env.NODE_EXTRA_CA_CERTS = savedExtra;
  await dns?.close();
  await netns?.close();
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
});

describe('a stdio MCP server of a world with credentials, over HTTPS', () => {
  it('sends the placeholder, the far server receives the real value, and no model request holds it', async () => {
    const from = bot.fake.requests.length;
    const seen: string[] = [];
    const url = `https://api.example.test:${netns.httpsPort}/echo`;
    bot.fake.setBrain(stepsBrain([toolUseReply('mcp__credential__call', { url }, { text: 'Calling.' }), textReply('ok')], seen));
    await bot.say('call the api', 'https-cred');
    const digest = createHash('sha256').update(`Bearer ${SECRET}`).digest('hex');
    expect(seen).toEqual([`sent Bearer skillbot-credential-API_TOKEN; received sha256 ${digest}`]);
    const sent = bot.fake.requests.slice(from).map((request) => request.rawBody).join('\n');
    expect(sent).toContain('skillbot-credential-API_TOKEN');
    expect(sent).not.toContain(SECRET);
  }, 60_000);
});
