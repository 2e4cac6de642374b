// The app manifest a user pastes must ask for what the adapter uses: its events, commands, buttons and scopes.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { SLACK_EVENTS_PATH } from '../../adapters/slack/index.ts';
import { SLACK_BOT_EVENTS, SLACK_BOT_SCOPES, SLACK_LEGACY_EVENTS } from '../../adapters/slack/manifestNeeds.ts';

interface Manifest {
  features: {
    slash_commands: Array<{ command: string; url: string }>;
    app_home: { messages_tab_enabled: boolean; home_tab_enabled: boolean };
    agent_view?: { agent_description: string };
    assistant_view?: unknown;
  };
  oauth_config: { scopes: { bot: string[] } };
  settings: {
    event_subscriptions: { request_url: string; bot_events: string[] };
    interactivity: { is_enabled: boolean; request_url: string };
    socket_mode_enabled: boolean;
  };
}

const manifestPath = join(import.meta.dirname, '..', '..', 'adapters', 'slack', 'manifest.yml');

describe('adapters/slack/manifest.yml', () => {
  it('subscribes to the events, commands and interactivity the adapter handles, all at /slack/events', async () => {
    const manifest = parse(await readFile(manifestPath, 'utf8')) as Manifest;
    expect(manifest.settings.event_subscriptions.bot_events.sort()).toEqual([...SLACK_BOT_EVENTS].sort());
    expect(manifest.features.slash_commands.map((command) => command.command).sort()).toEqual(['/hook', '/routine', '/skill', '/skills', '/usage']);
    expect(manifest.settings.interactivity.is_enabled).toBe(true);
    expect(manifest.features.app_home.messages_tab_enabled).toBe(true);
    // app_home_opened publishes a Home tab; the split view is agent_view (Slack refuses assistant_view for new apps).
    expect(manifest.features.app_home.home_tab_enabled).toBe(true);
    expect(manifest.features.agent_view?.agent_description).toBeTruthy();
    expect(manifest.features.assistant_view).toBeUndefined();
    const urls = [
      manifest.settings.event_subscriptions.request_url,
      manifest.settings.interactivity.request_url,
      ...manifest.features.slash_commands.map((command) => command.url),
    ];
    for (const url of urls) expect(new URL(url).pathname).toBe(SLACK_EVENTS_PATH);
  });

  it('asks for the scopes those need and no more', async () => {
    const manifest = parse(await readFile(manifestPath, 'utf8')) as Manifest;
    expect(manifest.oauth_config.scopes.bot.sort()).toEqual([...SLACK_BOT_SCOPES].sort());
  });

  it('lists every event the adapter listens to and no other, besides the old assistant_view ones still handled', async () => {
    const sources = await Promise.all(
      ['messages.ts', 'assistantThreads.ts', 'appHome.ts', 'access.ts'].map((file) => readFile(join(import.meta.dirname, '..', '..', 'adapters', 'slack', file), 'utf8')),
    );
    const registered = sources.flatMap((source) => [...source.matchAll(/bolt\.event\('([a-z_]+)'/g)].map((match) => match[1]));
    // A `message` listener stands for the four message.* subscriptions.
    const expanded = registered.flatMap((name) => (name === 'message' ? ['message.channels', 'message.groups', 'message.im', 'message.mpim'] : [name]));
    expect([...new Set(expanded)].sort()).toEqual([...SLACK_BOT_EVENTS, ...SLACK_LEGACY_EVENTS].sort());
  });
});
