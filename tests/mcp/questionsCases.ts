// A server's questions (elicitation) through a whole turn: a server of our own on the current SDK
// (@modelcontextprotocol/server 2.4, 2026-07-28), over stdio in the sandbox or Streamable HTTP (questions.test.ts,
// questionsHttp.test.ts run these same cases), asks mid-call; the question is a record in
// the store that only the requester may answer; values are checked against the server's schema before it hears
// them; decline, the approval timeout (cancel) and a URL question (shown to the requester with its host) follow.
// The platform here is the terminal world's presenter, recording what it is asked to show and answering as the
// person does (through app.mcp.questions.answer, the call a click or a modal's submission makes).
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import KeyvSqlite from '@keyv/sqlite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lastToolResult, textReply, toolUseReply } from '../fakes/anthropic.ts';
import { createAuditLog } from '../../src/approvals/index.ts';
import type { McpQuestion } from '../../src/mcp/questions/questionTypes.ts';
import { type McpHarness, startMcpHarness } from './harness.ts';
import { type OurServer, startOurServer, type Transport } from './fixtures/ourServers.ts';

/** The cases, against the elicitServer fixture reached over `transport`. */
export function questionsCases(transport: Transport): void {
  let bot: McpHarness;
  let server: OurServer;
  const STORE_FILE = join(mkdtempSync(join(tmpdir(), 'skillbot-questions-')), 'store.sqlite');

  /** The store's rows whose key ends with `suffix`, as they are in the file, read over a connection of its own. */
  async function rawRows(suffix: string): Promise<string> {
    const raw = new KeyvSqlite({ uri: `sqlite://${STORE_FILE}` });
    try {
      const rows = (await raw.query('SELECT key, value FROM keyv')) as Array<{ key: string; value: string }>;
      return JSON.stringify(rows.filter((row) => row.key.endsWith(suffix)));
    } finally {
      await raw.close();
    }
  }
  const shown: McpQuestion[] = [];
  const marked: McpQuestion[] = [];
  /** What the person does with the next question shown. */
  let respond: (question: McpQuestion) => Promise<void> = async () => {};

  beforeAll(async () => {
    server = await startOurServer('elicitServer', transport);
    bot = await startMcpHarness({ deployer: server.settings as never }, { mcpNoApproval: ['mcp__deployer__*'] }, (config) => {
      config.storeUrl = `sqlite://${STORE_FILE}`;
    });
    bot.app.mcp!.questions.addPresenter('terminal', {
      async present(question) {
        shown.push(question);
        setTimeout(() => void respond(question), 5);
        return undefined;
      },
      async resolved(question) {
        marked.push(question);
      },
    });
  }, 60_000);
  afterAll(async () => {
    await bot?.close();
    await server?.close();
  });

  const callThen = (tool: string) => (req: Parameters<Parameters<typeof bot.fake.setBrain>[0]>[0]) => {
    const result = lastToolResult(req);
    return result === undefined ? toolUseReply(`mcp__deployer__${tool}`, {}) : textReply(`server said: ${result.content}`);
  };

  describe(`MCP questions (${transport})`, () => {
    it("puts a form to the requester, refuses another person, checks the values against the schema, and sends them", async () => {
      const attempts: unknown[] = [];
      respond = async (question) => {
        const questions = bot.app.mcp!.questions;
        attempts.push(await questions.answer({ questionId: question.id, userId: 'U-stranger', action: 'accept', typed: { replicas: '3', reason: 'mine now' } }));
        attempts.push(await questions.answer({ questionId: question.id, userId: 'U1', action: 'accept', typed: { replicas: '12', reason: 'Has Capitals' } }));
        attempts.push(await questions.answer({ questionId: question.id, userId: 'U1', action: 'accept', typed: { replicas: 'three', reason: 'ok' } }));
        attempts.push(await questions.answer({ questionId: question.id, userId: 'U1', action: 'accept', typed: { replicas: '3', reason: 'release day', password: 'hunter2', confirm: 'yes' } }));
      };
      bot.fake.setBrain(callThen('deploy'));
      const { reply } = await bot.say('deploy it', 'form-chat', 'U1');
      expect(shown.at(-1)).toMatchObject({ server: 'deployer', message: 'Deploy to production?', mode: 'form', requesterId: 'U1' });
      expect(attempts[0]).toEqual({ kind: 'not_allowed', text: 'Only <@U1> can answer this' });
      expect(attempts[1]).toMatchObject({ kind: 'invalid' });
      // Past the schema's maximum, and (the server's `pattern`, run in linear time) letters it does not allow.
      expect((attempts[1] as { why: string }).why).toContain('must be <= 9');
      expect((attempts[1] as { why: string }).why).toContain('must match pattern');
      expect(attempts[2]).toEqual({ kind: 'invalid', why: 'Replicas must be a whole number' });
      expect(attempts[3]).toMatchObject({ kind: 'answered' });
      expect(JSON.parse(reply.replace(/^[\s\S]*server said: /, ''))).toEqual({ action: 'accept', content: { replicas: 3, reason: 'release day', password: 'hunter2', confirm: true } });
      expect(marked.at(-1)).toMatchObject({ action: 'accept', decidedBy: 'U1' });
      // Audited: who, what, the decision; the password's value never.
      const audit = await createAuditLog(bot.app.store).list();
      const entry = audit.find((record) => record.kind === 'question' && record.approvalId === shown.at(-1)!.id);
      expect(entry).toMatchObject({ outcome: 'accept', decidedBy: 'U1', requestedBy: 'U1', skillId: 'mcp__deployer' });
      expect(JSON.stringify(entry)).not.toContain('hunter2');
      expect(JSON.stringify(entry)).toContain('[secret]');
      // The answered record (kept for late clicks, read by the waiting instance) holds the values sealed only.
      const rows = await rawRows(`question:${shown.at(-1)!.id}`);
      expect(rows).toContain('sealedContent');
      expect(rows).not.toContain('hunter2');
      expect(rows).not.toContain('release day');
    }, 60_000);

    it('tells the server decline when the requester declines', async () => {
      respond = async (question) => void (await bot.app.mcp!.questions.answer({ questionId: question.id, userId: 'U1', action: 'decline' }));
      bot.fake.setBrain(callThen('deploy'));
      const { reply } = await bot.say('deploy it', 'decline-chat', 'U1');
      expect(reply).toContain('server said: {"action":"decline"}');
    }, 60_000);

    it('tells the server cancel when nobody answers within the approval timeout, and a late click is told so', async () => {
      respond = async () => {};
      bot.fake.setBrain(callThen('deploy'));
      const { reply } = await bot.say('deploy it', 'timeout-chat', 'U1');
      expect(reply).toContain('server said: {"action":"cancel"}');
      expect(marked.at(-1)).toMatchObject({ action: 'cancel', decidedBy: 'system:timeout' });
      const late = await bot.app.mcp!.questions.answer({ questionId: shown.at(-1)!.id, userId: 'U1', action: 'accept', typed: { replicas: '1', reason: 'late' } });
      expect(late.kind).toBe('already_answered');
    }, 60_000);

    it("shows a URL question to the requester with its host; accept tells the server so, and the bot never fetches it", async () => {
      respond = async (question) => void (await bot.app.mcp!.questions.answer({ questionId: question.id, userId: 'U1', action: 'accept' }));
      bot.fake.setBrain(callThen('sign_in'));
      const { reply } = await bot.say('sign me in', 'url-chat', 'U1');
      expect(shown.at(-1)).toMatchObject({ mode: 'url', host: 'billing.example.com', requesterId: 'U1', message: 'Sign in to the billing system' });
      expect(reply).toContain('server said: {"action":"accept"}');
    }, 60_000);
  });
}
