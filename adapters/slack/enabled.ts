// Whether `skillbot start` runs Slack: a light check that imports no Slack SDK (the CLI stays fast).
import type { Config } from '../../src/platform/index.ts';

export function slackEnabled(config: Config): boolean {
  return Boolean(config.slack.botToken && (config.slack.signingSecret || config.slack.appToken));
}
