// When Slack starts, and what a refused token looks like.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { slackLauncher } from '../../adapters/slack/index.ts';
import { ConfigError, loadConfig } from '../../src/config/config.ts';
import { startFakeAnthropic, type FakeAnthropic } from '../fakes/anthropic.ts';
import { startFakeSlack, type FakeSlack } from '../fakes/slack.ts';
import { makeSkillsDir, startSlackBot } from './harness.ts';

describe('slackLauncher.enabled', () => {
  it('needs the bot token and either the signing secret (HTTP) or the app token (Socket Mode)', () => {
    const enabled = (env: Record<string, string>) => slackLauncher.enabled(loadConfig(env));
    expect(enabled({ SLACK_BOT_TOKEN: 'xoxb-1', SLACK_SIGNING_SECRET: 's' })).toBe(true);
    expect(enabled({ SLACK_BOT_TOKEN: 'xoxb-1', SLACK_APP_TOKEN: 'xapp-1' })).toBe(true);
    expect(enabled({ SLACK_BOT_TOKEN: 'xoxb-1' })).toBe(false);
    expect(enabled({ SLACK_SIGNING_SECRET: 's', SLACK_APP_TOKEN: 'xapp-1' })).toBe(false);
  });
});

describe('slackLauncher.start', () => {
  let slack: FakeSlack;
  let anthropic: FakeAnthropic;
  let skills: Awaited<ReturnType<typeof makeSkillsDir>>;
  beforeAll(async () => {
    slack = await startFakeSlack();
    anthropic = await startFakeAnthropic();
    skills = await makeSkillsDir();
  });
  afterAll(async () => {
    await slack.close();
    await anthropic.close();
    await skills.remove();
  });

  it('refuses a token Slack refuses with one sentence that names the variable', async () => {
    const start = startSlackBot({ slack, anthropic, skillsRoot: skills.skillsRoot, env: { SLACK_BOT_TOKEN: 'xoxb-wrong' } });
    await expect(start).rejects.toBeInstanceOf(ConfigError);
    await expect(start).rejects.toThrow(/SLACK_BOT_TOKEN.*invalid_auth/);
  });
});
