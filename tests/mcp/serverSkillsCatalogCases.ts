// A server's skills in a Slack thread, end to end (issue 38, item 6): our own MCP server on the current SDK serving
// the skills extension, over stdio in the sandbox or Streamable HTTP (serverSkillsCatalog.test.ts and
// serverSkillsCatalogHttp.test.ts run these same cases), the bot between the Slack and Anthropic fakes. The server's
// skills are in the catalog the model reads (only where the world offers the server; a local skill of the same name
// wins), load_skill gives their instructions, a script runs in the sandbox after the requester's click, a changed
// manifest asks again although a session grant covered the old one, a nested skill asks on its own, and a skill
// whose bytes do not match the server's own digest is refused with the reason. `/skill <server>:<path>` typed by a
// person runs one as a local skill is run, or says why not, naming the id.
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeAnthropic, lastToolResult, startFakeAnthropic, stepsBrain, textReply, toolUseReply } from '../fakes/anthropic.ts';
import { type FakeSlack, type PostedMessage, startFakeSlack } from '../fakes/slack.ts';
import { HIDDEN_SKILL, makeSkillsDir, type SkillsDir } from '../platforms/skills.ts';
import { ALICE, CHANNEL, type SlackBot, startSlackBot, waitForReply } from '../slack/harness.ts';
import { type OurServer, startOurServer, type Transport } from './fixtures/ourServers.ts';

/** A channel whose world does not offer the server. */
const ELSEWHERE = 'C0ELSEWHERE';

/** The cases, against the skillServer fixture reached over `transport`. */
export function serverSkillsCases(transport: Transport): void {
  let server: OurServer;
  let slack: FakeSlack;
  let anthropic: FakeAnthropic;
  let skills: SkillsDir;
  let bot: SlackBot;
  let served: string;
  let stateFile: string;
  let configFile: string;

  beforeAll(async () => {
    // The server's own folder (never one of the bot's: a stdio server never sees those), readable by the sandbox's user.
    served = await mkdtemp(join(tmpdir(), 'skillbot-skill-server-'));
    await chmod(served, 0o755);
    stateFile = join(served, 'served-version');
    await writeFile(stateFile, 'tampered');
    slack = await startFakeSlack();
    anthropic = await startFakeAnthropic();
    // A local `house-style`: the server serves one of that name too.
    skills = await makeSkillsDir([HIDDEN_SKILL]);
    configFile = join(skills.dir, 'skillbot.yaml');
    server = await startOurServer('skillServer', transport, [stateFile, 'house-style', 'for-people']);
    await writeFile(
      configFile,
      [
        'mcpServers:',
        `  releases: ${JSON.stringify(server.settings)}`,
        'defaults:',
        '  mcp: [releases]',
        'worlds:',
        `  'slack:${slack.info.teamId}:${ELSEWHERE}':`,
        '    mcp: []',
        '',
      ].join('\n'),
    );
    bot = await startSlackBot({ slack, anthropic, skillsRoot: skills.skillsRoot, env: { SKILLBOT_CONFIG: configFile } });
  }, 60_000);
  afterAll(async () => {
    await bot?.stop();
    await slack?.close();
    await anthropic?.close();
    await server?.close();
    await skills?.remove();
    await rm(served, { recursive: true, force: true });
  });

  /** The system prompt's text as the model read it. */
  function systemText(system: unknown): string {
    return typeof system === 'string' ? system : JSON.stringify(system);
  }

  /** Approval questions in a thread still open (their buttons there), oldest first. */
  function openQuestions(threadTs: string): PostedMessage[] {
    return slack.thread(CHANNEL, threadTs).filter((message) => JSON.stringify(message.blocks ?? []).includes('"hitl_'));
  }

  async function mention(text: string, options: { channel?: string; threadTs?: string } = {}): Promise<string> {
    const ts = bot.sender.nextTs();
    await bot.sender.mention({ channel: options.channel ?? CHANNEL, user: ALICE, ts, text: `<@${slack.info.botUserId}> ${text}`, ...(options.threadTs === undefined ? {} : { threadTs: options.threadTs }) });
    return options.threadTs ?? ts;
  }

  /** Questions already answered (an answered card loses its buttons). */
  const answered = new Set<string>();

  /** Waits for the thread's next approval question and clicks `option` on it as Alice. */
  async function answerQuestion(threadTs: string, option: 'yes_once' | 'yes_in_session' | 'no'): Promise<PostedMessage> {
    const question = await slack.waitFor(() => openQuestions(threadTs).find((message) => !answered.has(message.ts)), { what: 'the next approval question' });
    answered.add(question.ts);
    const value = JSON.stringify(question.blocks).match(/"value":"([^"]+)"/)?.[1] ?? '';
    await bot.sender.click({ user: ALICE, channel: CHANNEL, messageTs: question.ts, threadTs, actionId: `hitl_${option}`, value });
    return question;
  }

  const runNotes = (args: string[]) => toolUseReply('run_skill_script', { skill_id: 'releases:release-notes', script: 'scripts/notes.sh', args }, { text: 'Running the notes script.' });

  describe(`a server's skills in a Slack thread (${transport})`, () => {
    it("refuses a skill whose bytes do not match the server's own digest, saying which file failed", async () => {
      const seen: string[] = [];
      anthropic.setBrain(stepsBrain([toolUseReply('load_skill', { skill_id: 'releases:release-notes' }, { text: 'Loading the release notes skill.' }), textReply('refused')], seen));
      const ts = await mention('write the release notes');
      await waitForReply(slack, CHANNEL, ts, /refused$/);
      expect(seen[0]).toContain('status="refused"');
      expect(seen[0]).toContain("The skill releases:release-notes was refused: skill://release-notes/scripts/notes.sh failed its digest check against the server's own listing.");
      await writeFile(stateFile, 'v1');
    }, 60_000);

    it('lists them in the catalog where the world offers the server, with a local skill of the same name winning', async () => {
      const systems: string[] = [];
      const seen: string[] = [];
      anthropic.setBrain((req) => {
        systems.push(systemText(req.system));
        return stepsBrain([toolUseReply('load_skill', { skill_id: 'releases:house-style' }, { text: 'Loading the house style.' }), textReply('looked')], seen)(req);
      });
      await waitForReply(slack, CHANNEL, await mention('what skills are there?'), /looked$/);
      expect(systems[0]).toContain('releases:release-notes: Writes the release notes of a version.');
      expect(systems[0]).toContain('releases:release-notes/draft: Drafts release notes before they are final.');
      expect(systems[0]).toContain('house-style: The house writing style.');
      expect(systems[0]).not.toContain('releases:house-style');
      expect(seen[0]).toContain('status="not_found"');

      systems.length = 0;
      anthropic.setBrain((req) => {
        systems.push(systemText(req.system));
        return textReply('elsewhere');
      });
      const ts = await mention('what skills are there?', { channel: ELSEWHERE });
      await slack.waitFor(() => slack.thread(ELSEWHERE, ts).find((message) => message.text.endsWith('elsewhere')), { what: 'the answer elsewhere' });
      expect(systems[0]).toContain('house-style: The house writing style.');
      expect(systems[0]).not.toContain('releases:');
    }, 60_000);

    it('loads one, runs its script in the sandbox after the click, asks again once the manifest changed, and asks for a nested skill on its own', async () => {
      const seen: string[] = [];
      // Outside the sandbox only: the run must not see it.
      const hostFile = configFile;
      anthropic.setBrain(stepsBrain([toolUseReply('load_skill', { skill_id: 'releases:release-notes' }, { text: 'Loading the release notes skill.' }), runNotes(['1.2', hostFile]), textReply('first done')], seen));
      const thread = await mention('write the release notes of 1.2');
      const first = await answerQuestion(thread, 'yes_in_session');
      expect(JSON.stringify(first.blocks)).toContain('releases:release-notes');
      await waitForReply(slack, CHANNEL, thread, /first done$/);
      expect(seen[0]).toContain('status="loaded"');
      expect(seen[0]).toContain('Run `scripts/notes.sh VERSION` and post what it prints.');
      expect(seen[0]).toContain('/skills/releases.release-notes');
      expect(seen[1]).toContain('notes for 1.2: v1');
      expect(seen[1]).toContain(`no such file here: ${hostFile}`);

      // The session grant covers the same manifest: no new question.
      anthropic.setBrain(stepsBrain([runNotes(['1.3']), textReply('second done')], seen));
      await mention('and 1.3', { threadTs: thread });
      await waitForReply(slack, CHANNEL, thread, /second done$/);
      expect(seen[2]).toContain('notes for 1.3: v1');
      expect(openQuestions(thread)).toEqual([]);
      expect(answered.size).toBe(1);

      // The server's manifest changes: the grant does not cover the new bytes.
      await writeFile(stateFile, 'v2');
      anthropic.setBrain(stepsBrain([runNotes(['1.4']), textReply('third done')], seen));
      await mention('and 1.4', { threadTs: thread });
      await answerQuestion(thread, 'yes_once');
      await waitForReply(slack, CHANNEL, thread, /third done$/);
      expect(seen[3]).toContain('notes for 1.4: v2');

      // The nested skill is its own: a grant for its parent does not cover it.
      anthropic.setBrain(
        stepsBrain([toolUseReply('run_skill_script', { skill_id: 'releases:release-notes/draft', script: 'scripts/draft.sh', args: [] }, { text: 'Drafting.' }), textReply('draft done')], seen),
      );
      await mention('draft them', { threadTs: thread });
      const nested = await answerQuestion(thread, 'yes_once');
      expect(JSON.stringify(nested.blocks)).toContain('releases:release-notes/draft');
      await waitForReply(slack, CHANNEL, thread, /draft done$/);
      expect(seen[4]).toContain('a draft');
    }, 120_000);

    it('/skill <server>:<path> typed by a person runs it with the arguments substituted, and says why not when it cannot', async () => {
      const results: string[] = [];
      anthropic.setBrain((req) => {
        results.push(lastToolResult(req)?.content ?? '');
        return textReply('done as asked');
      });
      /** The thread a `/skill` command opened (its root names who asked for what), once answered. */
      const skillCommand = async (text: string, channel = CHANNEL): Promise<PostedMessage> => {
        await bot.sender.command('/skill', text, { channel, user: ALICE });
        const id = text.split(' ')[0]!;
        const root = await slack.waitFor(() => slack.messages.find((message) => message.channel === channel && message.threadTs === undefined && message.text.includes(`*${id}*`)), { what: `the root of /skill ${text}` });
        return waitForReply(slack, channel, root.ts, /^done as asked/);
      };

      // disable-model-invocation: the model never sees it in the catalog, but a person may run it.
      const announced = await skillCommand('releases:announce 1.4.0');
      expect(announced.text).toBe('done as asked');
      expect(results[0]).toContain('status="loaded"');
      expect(results[0]).toContain('Announce the release of 1.4.0 in one line.');

      const background = await skillCommand('releases:background');
      expect(background.text).toContain('The skill "releases:background" is not run by people (user-invocable: false)');
      expect(results[1]).toContain('not_user_invocable');

      const missing = await skillCommand('releases:changelog');
      expect(missing.text).toContain('The skill "releases:changelog" is not offered here: no MCP server this chat may use lists it.');
      // A world that may not use the server: the same words, naming the id.
      const elsewhere = await skillCommand('releases:announce 1.5', ELSEWHERE);
      expect(elsewhere.text).toContain('The skill "releases:announce" is not offered here');
      expect(results.slice(2).every((result) => result.includes('server_skill_not_offered'))).toBe(true);
    }, 60_000);
  });
}
