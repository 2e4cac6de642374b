// The conformance suite's client under test: `node --import tsx tests/conformance/driver.ts <server url>`, run by
// `@modelcontextprotocol/conformance client` once per scenario (MCP_CONFORMANCE_SCENARIO names it). It reaches the
// server through src/mcp as the bot does (McpConnections, its bounded address-checked fetch, the per-person OAuth
// of signIn.ts on a memory store), signs in the way a person's browser would (follows the authorization link to
// its redirect and hands the answer to the bot's callback, then confirms the held sign-in), lists the tools and
// calls each of them with arguments built from its schema. A server's question goes through src/mcp/questions as a
// person's would; the person submits the form as shown (every field left as it was pre-filled), so the schema's
// defaults are what the core sends. Exit 0 once that is done; 1 with the reason otherwise.
import { randomBytes } from 'node:crypto';
import { discoverOAuthProtectedResourceMetadata, extractResourceMetadataUrl } from '@modelcontextprotocol/client';
import { isUnauthorized } from '../../src/mcp/mcpErrors.ts';
import type { PersonAuth } from '../../src/mcp/signIn.ts';
import { createServiceLauncher } from '../../src/exec/longRunning.ts';
import type { McpServerConfig } from '../../src/config/mcpSettings.ts';
import { McpConnections } from '../../src/mcp/connections.ts';
import { SignIns } from '../../src/mcp/signIn.ts';
import { TokenVault } from '../../src/mcp/tokenVault.ts';
import { createLogger } from '../../src/ops/log.ts';
import { createStore } from '../../src/store/createStore.ts';
import { createAuditLog } from '../../src/approvals/index.ts';
import { McpQuestions } from '../../src/mcp/questions/questions.ts';
import { routeQuestion } from '../../src/mcp/questions/serverQuestions.ts';

const url = process.argv[2] ?? '';
if (url === '') throw new Error('usage: driver.ts <server url>');
const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? '';
const logger = createLogger('debug');
// Where the authorization server sends the browser back: never opened, only read from its redirect. https, so the
// bot offers its Client ID Metadata Document where an authorization server takes one.
const PUBLIC_URL = 'https://skillbot.example';
const PERSON = 'U-conformance';
/** Whose call a server's question answers: the person, in a terminal chat of their own. */
const ASKER = { worldId: 'terminal:conformance', chatId: 'terminal:conformance', requesterId: PERSON, timeoutMs: 20_000 };

/** Arguments a tool's schema asks for: a value of each required property's type. */
function argumentsFor(schema: { properties?: Record<string, { type?: string }>; required?: string[] }): Record<string, unknown> {
  const sample: Record<string, unknown> = { number: 2, integer: 2, string: 'skillbot', boolean: true, array: [], object: {} };
  return Object.fromEntries((schema.required ?? []).map((name) => [name, sample[schema.properties?.[name]?.type ?? 'string']]));
}

/** The person's browser: follows the link to the authorization server's redirect, and gives the bot's callback its query. */
async function signIn(signIns: SignIns, link: string): Promise<void> {
  const answer = await fetch(link, { redirect: 'manual' });
  const location = answer.headers.get('location');
  if (location === null) throw new Error(`the authorization server answered ${answer.status} without a redirect`);
  const outcome = await signIns.complete(new URL(location, link).searchParams);
  if (!outcome.ok) throw new Error(outcome.why);
  // The person confirms in the chat the code the callback page showed.
  if (!(await signIns.settle(outcome.server, outcome.personId, outcome.code, true))) throw new Error('the held sign-in was not confirmed');
}

/**
 * The server's settings as an operator would write them for this server: the authorization server its metadata
 * names pinned (`oauth.authorizationServer`: the suite's runs on another loopback port, which the bot reaches off
 * the server's origin only when pinned), and a pre-registered client where the scenario gives one.
 */
async function serverConfig(): Promise<McpServerConfig> {
  const context = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT ?? '{}') as { client_id?: string; client_secret?: string };
  // Where the server's 401 says its metadata is, else the well-known place.
  const probe = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: '{}', signal: AbortSignal.timeout(5000) }).catch(() => undefined);
  await probe?.body?.cancel();
  // A server that does not ask for credentials needs no OAuth settings (and may answer any GET with a stream).
  if (probe?.status !== 401) return { name: 'conformance', type: 'http', url, headers: {} };
  const resourceMetadataUrl = extractResourceMetadataUrl(probe);
  const metadata = await discoverOAuthProtectedResourceMetadata(url, resourceMetadataUrl === undefined ? undefined : { resourceMetadataUrl }).catch(() => undefined);
  const authorizationServer = metadata?.authorization_servers?.[0];
  const oauth = {
    ...(authorizationServer === undefined || new URL(authorizationServer).origin === new URL(url).origin ? {} : { authorizationServer }),
    ...(context.client_id === undefined ? {} : { clientId: context.client_id }),
    ...(context.client_secret === undefined ? {} : { clientSecret: context.client_secret }),
  };
  return { name: 'conformance', type: 'http', url, headers: {}, ...(Object.keys(oauth).length === 0 ? {} : { oauth }) };
}

async function main(): Promise<void> {
  const store = await createStore('memory://');
  const server = await serverConfig();
  const signIns = new SignIns([server], new TokenVault(store, randomBytes(32)), PUBLIC_URL, logger);
  // Remote servers only: the sandbox launcher is never asked to start anything.
  const launcher = createServiceLauncher({ mode: 'bwrap', logger, sandbox: async () => ({ mode: 'bwrap', usable: false, problem: 'no stdio server in the conformance driver', fix: 'none' }) });
  // The provider the connection signs the person in with: after a call's 401 or 403 (a step-up), its link.
  let provider: PersonAuth | undefined;
  const questions = new McpQuestions({ store, audit: createAuditLog(store), logger, stateKey: randomBytes(32) });
  // The person: sees the form and submits it untouched (a field's text empty, as a platform without pre-filling hands it).
  questions.addPresenter('terminal', {
    present: async (question) => void setTimeout(() => void questions.answer({ questionId: question.id, userId: PERSON, action: 'accept', typed: {} }), 1),
    resolved: async () => {},
  });
  const connections = new McpConnections({ launcher, logger, timeoutMs: 20_000, authProvider: (remote, personId) => (provider = signIns.provider(remote, personId)), onQuestion: routeQuestion(questions, logger) });
  const scope = { worldId: 'conformance', personId: PERSON, network: false };
  const connect = async () => {
    let connected = await connections.get(server, scope);
    for (let round = 0; !connected.ok && connected.signIn !== undefined && round < 3; round++) {
      await signIn(signIns, connected.signIn.url);
      await connections.reset(server, PERSON);
      connected = await connections.get(server, scope);
    }
    if (!connected.ok) throw new Error(connected.why);
    return connected;
  };
  try {
    let connected = await connect();
    logger.info({ scenario, protocol: connected.client.getNegotiatedProtocolVersion(), tools: connected.tools().map((tool) => tool.name) }, 'conformance driver connected');
    for (const tool of connected.tools()) {
      const call = () => connected.asking(ASKER, () => connected.client.callTool({ name: tool.name, arguments: argumentsFor(tool.inputSchema as never) }, { timeout: 20_000 }));
      // As the bot does (toolCall.ts): a call refused for its credentials signs the person in again, once.
      const result = await call().catch(async (error: unknown) => {
        const link = provider?.pendingUrl();
        if (!isUnauthorized(error) || link === undefined) throw error;
        await signIn(signIns, link);
        await connections.reset(server, PERSON);
        connected = await connect();
        return call();
      });
      logger.info({ tool: tool.name, isError: result.isError === true }, 'conformance driver called a tool');
    }
  } finally {
    await connections.close();
    await store.close();
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    logger.error({ scenario, err: error }, 'conformance driver failed');
    process.exit(1);
  },
);
