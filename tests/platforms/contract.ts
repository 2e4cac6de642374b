// The platform contract: the conversations every platform must hold the same way, run against Slack and
// Discord through one driver interface (as the store contract runs against every store). A platform's own
// files test only what is its own (transport, commands, rendering).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NOT_ALLOWED_TEXT } from '../../src/approvals/approvals.ts';
import { type FakeAnthropic, lastToolResult, lastUserText, startFakeAnthropic, textReply, toolUseReply } from '../fakes/anthropic.ts';

export type Person = 'alice' | 'bob';
export type Option = 'yes_once' | 'yes_in_session' | 'no';

/** A skill whose instructions name a script, so loading it asks for approval. */
export const REPORT_SKILL = {
  id: 'disk-report',
  skillMd: '---\nname: disk-report\ndescription: Report disk usage of the project.\n---\n# Disk report\nRun scripts/report.sh and summarise its output.\n',
  script: '#!/bin/sh\necho "disk used: 42%"\n',
};

/** One platform as a person uses it. Each driver speaks its platform's real protocol through the fakes. */
export interface PlatformDriver {
  /** Starts the fake platform and the bot (skills root holding REPORT_SKILL, a SQLite store that outlives restarts). */
  start(anthropic: FakeAnthropic): Promise<void>;
  /** Stops the bot the way `skillbot start` does on SIGTERM, and starts a new one on the same store. */
  restart(): Promise<void>;
  stop(): Promise<void>;
  /** `person` mentions the bot in a channel: a conversation starts (in a thread). */
  mention(person: Person, text: string): Promise<Conversation>;
}

export interface Conversation {
  /** `person` writes in the conversation, without a mention. */
  say(person: Person, text: string): Promise<void>;
  /** The platform delivers the conversation's last message again (a retry, a replay). */
  deliverAgain(): Promise<void>;
  /** Waits for an answer of the bot that reads `text`. */
  waitForAnswer(text: string): Promise<void>;
  /** The bot's answers so far, oldest first (not its approval questions). */
  answers(): string[];
  /** Waits for the next approval question the bot asks in the conversation. */
  waitForQuestion(): Promise<Question>;
}

export interface Question {
  /** What the person sees. */
  text(): string;
  /** Whether it still offers its buttons. */
  isOpen(): boolean;
  click(person: Person, option: Option): Promise<void>;
  /** Waits for a note only `person` sees, reading `text`. */
  waitForPrivateNote(person: Person, text: string): Promise<void>;
}

export function describePlatformContract(name: string, makeDriver: () => PlatformDriver): void {
  describe(`${name}: the platform contract`, () => {
    let anthropic: FakeAnthropic;
    let driver: PlatformDriver;

    /** The model loads the report skill, then says whether its script ran. */
    const reportBrain = () =>
      anthropic.setBrain((req) => {
        const result = lastToolResult(req);
        if (!result) return toolUseReply('load_skill', { skill_id: REPORT_SKILL.id });
        return textReply(result.content.includes('disk used: 42%') ? 'the script ran' : 'the script did not run');
      });
    const echoBrain = () => anthropic.setBrain((req) => textReply(`heard: ${lastUserText(req) ?? ''}`));

    beforeAll(async () => {
      anthropic = await startFakeAnthropic();
      driver = makeDriver();
      await driver.start(anthropic);
    });
    afterAll(async () => {
      await driver?.stop();
      await anthropic?.close();
    });

    it('answers a mention in its conversation, and goes on there without one, remembering the earlier turn', async () => {
      echoBrain();
      const chat = await driver.mention('alice', 'remember the word kiwi');
      await chat.waitForAnswer('heard: remember the word kiwi');
      let seen = '';
      anthropic.setBrain((req) => {
        seen = JSON.stringify(req.messages);
        return textReply('the word was kiwi');
      });
      await chat.say('bob', 'what was the word?');
      await chat.waitForAnswer('the word was kiwi');
      expect(seen).toContain('remember the word kiwi');
      expect(chat.answers()).toEqual(['heard: remember the word kiwi', 'the word was kiwi']);
    });

    it('asks before a script runs, naming the skill and the script, and runs it once the requester says yes', async () => {
      reportBrain();
      const chat = await driver.mention('alice', 'how full is the disk?');
      const question = await chat.waitForQuestion();
      expect(question.text()).toContain(REPORT_SKILL.id);
      expect(question.text()).toContain('scripts/report.sh');
      expect(question.isOpen()).toBe(true);
      await question.click('alice', 'yes_once');
      await chat.waitForAnswer('the script ran');
      expect(question.isOpen()).toBe(false);
    });

    it('runs nothing when the requester says no', async () => {
      reportBrain();
      const chat = await driver.mention('alice', 'how full is the disk now?');
      const question = await chat.waitForQuestion();
      await question.click('alice', 'no');
      await chat.waitForAnswer('the script did not run');
      expect(question.isOpen()).toBe(false);
    });

    it('tells a stranger privately that they may not answer, and the question stays open for the requester', async () => {
      reportBrain();
      const chat = await driver.mention('alice', 'disk please');
      const question = await chat.waitForQuestion();
      await question.click('bob', 'yes_once');
      await question.waitForPrivateNote('bob', NOT_ALLOWED_TEXT);
      expect(question.isOpen()).toBe(true);
      expect(chat.answers()).toEqual([]);
      await question.click('alice', 'no');
      await chat.waitForAnswer('the script did not run');
    });

    it('remembers "yes for this conversation": the next run there asks nobody', async () => {
      reportBrain();
      const chat = await driver.mention('alice', 'disk, and keep it allowed');
      const question = await chat.waitForQuestion();
      await question.click('alice', 'yes_in_session');
      await chat.waitForAnswer('the script ran');
      await chat.say('alice', 'and again?');
      await expect.poll(() => chat.answers(), { timeout: 15_000 }).toEqual(['the script ran', 'the script ran']);
    });

    it('answers a message the platform delivers twice only once', async () => {
      echoBrain();
      const chat = await driver.mention('alice', 'only once please');
      await chat.deliverAgain();
      await chat.waitForAnswer('heard: only once please');
      await chat.say('alice', 'next');
      await chat.waitForAnswer('heard: next');
      expect(chat.answers()).toEqual(['heard: only once please', 'heard: next']);
      expect(anthropic.requests.filter((request) => request.rawBody.includes('only once please') && !request.rawBody.includes('next'))).toHaveLength(1);
    });

    it('after a restart, the conversation goes on with its history', async () => {
      echoBrain();
      const chat = await driver.mention('alice', 'the code word is mango');
      await chat.waitForAnswer('heard: the code word is mango');
      await driver.restart();
      let seen = '';
      anthropic.setBrain((req) => {
        seen = JSON.stringify(req.messages);
        return textReply('still here');
      });
      await chat.say('alice', 'what was the code word?');
      await chat.waitForAnswer('still here');
      expect(seen).toContain('the code word is mango');
    });
  });
}
