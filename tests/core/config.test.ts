// Settings an operator sets: `~` in SKILLS_DIRS, METRICS_PORT, the model provider, a credential without its partner.
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, platformCredentialProblems, worldSettings } from '../../src/config/config.ts';

describe('operator settings', () => {
  it('reads a leading ~ in SKILLS_DIRS as the home folder, as a shell would', () => {
    const config = loadConfig({ HOME: '/home/ops', SKILLS_DIRS: '~/skills:~:./local:/opt/~x' });
    expect(config.skillsDirs).toEqual(['/home/ops/skills', '/home/ops', './local', '/opt/~x']);
  });

  it('serves /metrics on PORT unless METRICS_PORT is set, and says what is wrong with a bad one', () => {
    expect(loadConfig({}).metricsPort).toBeUndefined();
    expect(loadConfig({ METRICS_PORT: '' }).metricsPort).toBeUndefined();
    expect(loadConfig({ METRICS_PORT: '9464' }).metricsPort).toBe(9464);
    expect(() => loadConfig({ METRICS_PORT: 'ninety' })).toThrow(new ConfigError('METRICS_PORT must be a whole number from 0 to 65535 (got "ninety"); see .env.example.'));
  });

  it('chooses the model provider, refusing an unknown one', () => {
    expect(loadConfig({ ANTHROPIC_API_KEY: 'k' }).anthropic).toEqual({ provider: 'anthropic', apiKey: 'k', baseUrl: undefined });
    expect(loadConfig({ ANTHROPIC_PROVIDER: 'Bedrock', AWS_REGION: 'us-west-2' }).anthropic).toMatchObject({ provider: 'bedrock', region: 'us-west-2' });
    expect(() => loadConfig({ ANTHROPIC_PROVIDER: 'azure' })).toThrow(/ANTHROPIC_PROVIDER must be one of anthropic, bedrock, vertex \(got "azure"\)/);
  });

  it('names the partner a platform credential lacks', () => {
    expect(platformCredentialProblems(loadConfig({ SLACK_BOT_TOKEN: 'xoxb-1' }))).toEqual([
      'SLACK_BOT_TOKEN is set but neither SLACK_SIGNING_SECRET (HTTP mode) nor SLACK_APP_TOKEN (Socket Mode) is: set one of them (Slack app → Basic Information), or unset SLACK_BOT_TOKEN.',
    ]);
    expect(platformCredentialProblems(loadConfig({ SLACK_APP_TOKEN: 'xapp-1' }))[0]).toMatch(/^SLACK_APP_TOKEN is set but SLACK_BOT_TOKEN is not/);
    expect(platformCredentialProblems(loadConfig({ DISCORD_GUILD_ID: '1' }))[0]).toMatch(/^DISCORD_GUILD_ID is set but DISCORD_TOKEN is not/);
    expect(platformCredentialProblems(loadConfig({ SLACK_BOT_TOKEN: 'xoxb-1', SLACK_APP_TOKEN: 'xapp-1', DISCORD_TOKEN: 't' }))).toEqual([]);
  });

  it('gives each world its daily token budget: its own, else the defaults', () => {
    const config = loadConfig({});
    config.defaults.dailyTokenBudget = 1000;
    config.worlds['slack:T1:C1'] = { dailyTokenBudget: 5 };
    expect(worldSettings(config, 'slack:T1:C1').dailyTokenBudget).toBe(5);
    expect(worldSettings(config, 'slack:T1:C2').dailyTokenBudget).toBe(1000);
  });
});
