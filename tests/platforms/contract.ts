// The platform contract: the conversations every platform must hold the same way, run against Slack and
// Discord through one driver interface (driver.ts), as the store contract runs against every store. A platform's
// own files test only what is its own (transport, commands, rendering).
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { NOT_ALLOWED_TEXT } from '../../src/approvals/approvals.ts';
import { type FakeAnthropic, startFakeAnthropic, textReply } from '../fakes/anthropic.ts';
import { deliveryScenarios } from './contractDelivery.ts';
import { fileScenarios } from './contractFiles.ts';
import { stopScenarios } from './contractStop.ts';
import { workspaceScenarios } from './contractWorkspace.ts';
import { PDF_FORMS_SKILL } from '../fixtures/documentSkills.ts';
import type { PlatformDriver } from './driver.ts';
import { heardBrain, HeldCalls, makeSkillsDir, NOTES_SKILL, REPORT_SKILL, reportBrain, type SkillsDir, SLOW_SKILL } from './skills.ts';

/** What the scenarios share: filled in before the first one runs. */
export interface ContractContext {
  anthropic: FakeAnthropic;
  driver: PlatformDriver;
  /** Model calls a scenario holds open; let go after each scenario. */
  held: HeldCalls;
}

/** Bounds low enough for a test's files to cross (the defaults are megabytes). */
export const FILE_BOUNDS = { FILE_MAX_BYTES: '2000', OUTPUT_FILE_MAX_BYTES: '2000' };

export function describePlatformContract(name: string, makeDriver: () => PlatformDriver): void {
  describe(`${name}: the platform contract`, () => {
    const ctx = { held: new HeldCalls() } as ContractContext;
    let skills: SkillsDir;

    beforeAll(async () => {
      ctx.anthropic = await startFakeAnthropic();
      skills = await makeSkillsDir([REPORT_SKILL, NOTES_SKILL, SLOW_SKILL, PDF_FORMS_SKILL], ['csv-summary']);
      ctx.driver = makeDriver();
      await ctx.driver.start(ctx.anthropic, { skillsDirs: skills.skillsRoot, storeUrl: `sqlite://${join(skills.dir, 'state.sqlite')}`, env: FILE_BOUNDS });
    });
    afterEach(() => ctx.held.releaseAll());
    afterAll(async () => {
      await ctx.driver?.stop();
      await ctx.anthropic?.close();
      await skills?.remove();
    });

    it('answers a mention in its conversation, and goes on there without one, remembering the earlier turn', async () => {
      heardBrain(ctx.anthropic);
      const chat = await ctx.driver.mention('alice', 'remember the word kiwi');
      await chat.waitForAnswer('heard: remember the word kiwi');
      let seen = '';
      ctx.anthropic.setBrain((req) => {
        seen = JSON.stringify(req.messages);
        return textReply('the word was kiwi');
      });
      await chat.say('bob', 'what was the word?');
      await chat.waitForAnswer('the word was kiwi');
      expect(seen).toContain('remember the word kiwi');
      expect(chat.answers()).toEqual(['heard: remember the word kiwi', 'the word was kiwi']);
    });

    it('asks before a script runs, naming the skill and the script, and runs it once the requester says yes', async () => {
      reportBrain(ctx.anthropic);
      const chat = await ctx.driver.mention('alice', 'how full is the disk?');
      const question = await chat.waitForQuestion();
      expect(question.text()).toContain(REPORT_SKILL.id);
      expect(question.text()).toContain('scripts/report.sh');
      expect(question.isOpen()).toBe(true);
      await question.click('alice', 'yes_once');
      await chat.waitForAnswer('the script ran');
      expect(question.isOpen()).toBe(false);
    });

    it('runs nothing when the requester says no', async () => {
      reportBrain(ctx.anthropic);
      const chat = await ctx.driver.mention('alice', 'how full is the disk now?');
      const question = await chat.waitForQuestion();
      await question.click('alice', 'no');
      await chat.waitForAnswer('the script did not run');
      expect(question.isOpen()).toBe(false);
    });

    it('tells a stranger privately that they may not answer, and the question stays open for the requester', async () => {
      reportBrain(ctx.anthropic);
      const chat = await ctx.driver.mention('alice', 'disk please');
      const question = await chat.waitForQuestion();
      await question.click('bob', 'yes_once');
      await chat.waitForPrivateNote('bob', NOT_ALLOWED_TEXT);
      expect(question.isOpen()).toBe(true);
      expect(chat.answers()).toEqual([]);
      await question.click('alice', 'no');
      await chat.waitForAnswer('the script did not run');
    });

    it('remembers "yes for this conversation": the next run there asks nobody', async () => {
      reportBrain(ctx.anthropic);
      const chat = await ctx.driver.mention('alice', 'disk, and keep it allowed');
      const question = await chat.waitForQuestion();
      await question.click('alice', 'yes_in_session');
      await chat.waitForAnswer('the script ran');
      await chat.say('alice', 'and again?');
      await expect.poll(() => chat.answers(), { timeout: 15_000 }).toEqual(['the script ran', 'the script ran']);
    });

    it('answers a message the platform delivers twice only once', async () => {
      heardBrain(ctx.anthropic);
      const chat = await ctx.driver.mention('alice', 'only once please');
      await chat.deliverAgain();
      await chat.waitForAnswer('heard: only once please');
      await chat.say('alice', 'next');
      await chat.waitForAnswer('heard: next');
      expect(chat.answers()).toEqual(['heard: only once please', 'heard: next']);
      // The conversation, not the whole body: tool descriptions may hold any word (schedule_followup's says "next").
      const conversation = (request: { body?: { messages: unknown[] } }) => JSON.stringify(request.body?.messages ?? []);
      expect(ctx.anthropic.requests.filter((request) => conversation(request).includes('only once please') && !conversation(request).includes('next'))).toHaveLength(1);
    });

    it('after a restart, the conversation goes on with its history', async () => {
      heardBrain(ctx.anthropic);
      const chat = await ctx.driver.mention('alice', 'the code word is mango');
      await chat.waitForAnswer('heard: the code word is mango');
      await ctx.driver.restart();
      let seen = '';
      ctx.anthropic.setBrain((req) => {
        seen = JSON.stringify(req.messages);
        return textReply('still here');
      });
      await chat.say('alice', 'what was the code word?');
      await chat.waitForAnswer('still here');
      expect(seen).toContain('the code word is mango');
    });

    stopScenarios(ctx);
    fileScenarios(ctx);
    workspaceScenarios(ctx);
    deliveryScenarios(ctx);
  });
}
