// The loopback fake of the Slack Web API, and what Slack sends to a bot (see docs/slack.md). Import from here.
export { startFakeSlack } from './slack/server.ts';
export type { FakeSlack, FakeSlackOptions, RecordedCall, ResponseUrlPost, SlackFault } from './slack/server.ts';
export { SlackSender, slackSignature } from './slack/slackRequests.ts';
export type { ClickInput, SendOptions, SlackResponse, UserMessage } from './slack/slackRequests.ts';
export type { EphemeralMessage, PostedMessage } from './slack/webApi.ts';
