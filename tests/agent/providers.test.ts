// Claude through Amazon Bedrock and Google Vertex AI: the SDK's own clients (ANTHROPIC_PROVIDER), against loopback
// fakes of each cloud's wire shape, for a whole turn with a tool call, an approval and a skill script.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { OAuth2Client } from 'google-auth-library';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { type App, createApp } from '../../src/app.ts';
import { ConfigError, loadConfig } from '../../src/config/config.ts';
import { silentLogger } from '../../src/ops/log.ts';
import type { IncomingMessage } from '../../src/platform/port.ts';
import { type FakeAnthropic, lastToolResult, scripted, startFakeAnthropic, textReply, toolUseReply } from '../fakes/anthropic.ts';
import { type FakeCloud, startFakeBedrock, startFakeVertex } from '../fakes/cloudModels.ts';
import { STATS_SKILL, writeSkills } from './harness.ts';

const MODEL = 'anthropic.claude-sonnet-4-5-20250929-v1:0';
const VERTEX_MODEL = 'claude-sonnet-4-5@20250929';
const WORLD = 'terminal:local';

let dir: string;
let anthropic: FakeAnthropic;
const open: Array<() => Promise<void>> = [];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'skillbot-providers-'));
  await writeSkills(join(dir, 'skills'), [STATS_SKILL]);
});

afterEach(async () => {
  for (const close of open.splice(0).reverse()) await close();
  vi.unstubAllEnvs();
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** A bot on the given provider settings, whose questions the requester answers yes (once), and one turn through it. */
async function turnThrough(env: Record<string, string>, vertexAuthClient?: unknown): Promise<{ app: App; reply: string; status: string; asked: string[] }> {
  // Loads the skill, runs its script with one argument, then answers with what the script printed.
  anthropic.setBrain(
    scripted([
      toolUseReply('load_skill', { skill_id: STATS_SKILL.name }),
      toolUseReply('run_skill_script', { skill_id: STATS_SKILL.name, script: 'scripts/count.sh', args: ['src'] }),
      (req) => textReply(`the script says ${/lines: 42 args: \S+/.exec(lastToolResult(req)?.content ?? '')?.[0] ?? '(nothing)'}`),
    ]),
  );
  const config = loadConfig({ SKILLS_DIRS: join(dir, 'skills'), STORE_URL: 'memory://', ...env });
  const app = await createApp(config, silentLogger(), { watchSkills: false, vertexAuthClient, retry: { maxAttempts: 1, baseDelayMs: 5, maxDelayMs: 10 } });
  open.push(() => app.close());
  const replies: string[] = [];
  app.dispatcher.addPort('terminal', { sinkFor: () => ({ progress() {}, reply: async (text) => void replies.push(text) }) });
  const asked: string[] = [];
  app.approvals.addPresenter('terminal', {
    async present(record) {
      asked.push(record.skillId);
      setTimeout(() => void app.approvals.respond({ worldId: record.worldId, approvalId: record.id, option: 'yes_once', userId: record.requesterId }), 1);
      return undefined;
    },
    async resolved() {},
    async tellPrivately() {},
  });
  app.dispatcher.start();
  const message: IncomingMessage = { worldId: WORLD, chatId: `${WORLD}/cloud`, userId: 'U1', text: 'count the lines' };
  const outcome = await app.dispatcher.submit(message);
  return { app, reply: replies.join('\n'), status: outcome.status, asked };
}

describe('ANTHROPIC_PROVIDER=bedrock', () => {
  let bedrock: FakeCloud;
  beforeAll(async () => {
    // A model of its own behind each cloud: a scripted brain counts every request it answers.
    anthropic = await startFakeAnthropic();
    bedrock = await startFakeBedrock({ anthropicUrl: anthropic.url, region: 'eu-west-1' });
  });
  afterAll(async () => {
    await bedrock.close();
    await anthropic.close();
  });

  it('streams a turn with a tool call and an approved script through invoke-with-response-stream, SigV4-signed', async () => {
    // The SDK reads AWS credentials itself (the default chain, environment first).
    vi.stubEnv('AWS_ACCESS_KEY_ID', 'AKIDEXAMPLE');
    vi.stubEnv('AWS_SECRET_ACCESS_KEY', 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY');
    const seen = anthropic.requests.length;
    const { reply, status, asked } = await turnThrough({
      ANTHROPIC_PROVIDER: 'bedrock',
      AWS_REGION: 'eu-west-1',
      ANTHROPIC_BEDROCK_BASE_URL: bedrock.url,
      SKILLBOT_MODEL: MODEL,
    });
    expect(status).toBe('answered');
    expect(reply).toBe('the script says lines: 42 args: src');
    expect(asked.length).toBeGreaterThanOrEqual(1);
    expect(new Set(asked)).toEqual(new Set([STATS_SKILL.name]));
    const calls = bedrock.requests.filter((request) => request.status === 200);
    expect(calls.length).toBeGreaterThanOrEqual(3);
    for (const call of calls) {
      expect(decodeURIComponent(call.path)).toBe(`/model/${MODEL}/invoke-with-response-stream`);
      expect(call.headers.authorization).toMatch(/^AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE\/\d{8}\/eu-west-1\/bedrock\/aws4_request/);
      expect(call.body).toMatchObject({ anthropic_version: expect.any(String) });
    }
    // The model behind it saw the tool call and its result like any other request.
    const reached = anthropic.requests.slice(seen).filter((request) => request.outcome === 'ok');
    expect(reached.map((request) => request.body?.model)).toEqual(calls.map(() => MODEL));
    expect(JSON.stringify(reached.at(-1)?.body?.messages)).toContain('lines: 42 args: src');
  });

  it('without a region, says which variable to set', () => {
    expect(() => loadConfig({ ANTHROPIC_PROVIDER: 'bedrock' })).toThrow(new ConfigError('ANTHROPIC_PROVIDER=bedrock needs AWS_REGION (the Bedrock region, e.g. us-east-1); see .env.example.'));
  });
});

describe('ANTHROPIC_PROVIDER=vertex', () => {
  let vertex: FakeCloud;
  const token = 'ya29.fake-vertex-token';
  beforeAll(async () => {
    anthropic = await startFakeAnthropic();
    vertex = await startFakeVertex({ anthropicUrl: anthropic.url, project: 'acme-ml', region: 'us-east5', accessToken: token });
  });
  afterAll(async () => {
    await vertex.close();
    await anthropic.close();
  });

  /** google-auth-library's own OAuth2 client holding a token (what Application Default Credentials yield). */
  function authClient(accessToken: string): OAuth2Client {
    const client = new OAuth2Client();
    client.setCredentials({ access_token: accessToken, expiry_date: Date.now() + 3_600_000 });
    return client;
  }

  const env = {
    ANTHROPIC_PROVIDER: 'vertex',
    CLOUD_ML_REGION: 'us-east5',
    ANTHROPIC_VERTEX_PROJECT_ID: 'acme-ml',
    SKILLBOT_MODEL: VERTEX_MODEL,
  };

  it('streams a turn with a tool call and an approved script through streamRawPredict', async () => {
    const { reply, status, asked } = await turnThrough({ ...env, ANTHROPIC_VERTEX_BASE_URL: `${vertex.url}/v1` }, authClient(token));
    expect(status).toBe('answered');
    expect(reply).toBe('the script says lines: 42 args: src');
    expect(asked.length).toBeGreaterThanOrEqual(1);
    expect(new Set(asked)).toEqual(new Set([STATS_SKILL.name]));
    const calls = vertex.requests.filter((request) => request.status === 200);
    expect(calls.length).toBeGreaterThanOrEqual(3);
    for (const call of calls) {
      expect(call.path).toBe(`/v1/projects/acme-ml/locations/us-east5/publishers/anthropic/models/${VERTEX_MODEL}:streamRawPredict`);
      expect(call.headers.authorization).toBe(`Bearer ${token}`);
      expect(call.body).toMatchObject({ anthropic_version: expect.any(String), stream: true });
    }
  });

  it('a refused token is an answer the person reads, not a crash', async () => {
    const { reply, status } = await turnThrough({ ...env, ANTHROPIC_VERTEX_BASE_URL: `${vertex.url}/v1` }, authClient('ya29.revoked'));
    expect(status).toBe('model_refused');
    expect(reply).toMatch(/^I could not get an answer: /);
  });

  it('without a project, says which variable to set', () => {
    expect(() => loadConfig({ ANTHROPIC_PROVIDER: 'vertex', CLOUD_ML_REGION: 'us-east5' })).toThrow(/ANTHROPIC_VERTEX_PROJECT_ID/);
  });
});
