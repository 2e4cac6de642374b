// The Slack platform for `skillbot start`: Bolt 5 over HTTP or Socket Mode (adapters/slack/platform.ts).
import type { PlatformLauncher } from '../../src/platform/index.ts';
import { slackEnabled } from './enabled.ts';
import { startSlack } from './platform.ts';

export { SLACK_EVENTS_PATH } from './platform.ts';

/** Runs when SLACK_BOT_TOKEN and SLACK_SIGNING_SECRET (HTTP) or SLACK_APP_TOKEN (Socket Mode) are set. */
export const slackLauncher: PlatformLauncher = {
  name: 'slack',
  enabled: slackEnabled,
  start: startSlack,
};
