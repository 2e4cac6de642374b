// The loopback fake of the Slack Web API (and Socket Mode), and what Slack sends to a bot (see docs/slack.md).
export { startFakeSlack } from './slack/server.ts';
export type { FakeSlack, FakeSlackOptions, RateLimitRateOptions, RecordedCall, ResponseUrlPost, SlackFault } from './slack/server.ts';
export { clickPayload, commandBody, eventBody, messageEvent, SlackSender, slackSignature } from './slack/slackRequests.ts';
export type { ClickInput, RequestWorkspace, SendOptions, SlackResponse, UserMessage } from './slack/slackRequests.ts';
export type { EnvelopeType, SocketModeLink } from './slack/socketMode.ts';
export type { AssistantCall, EphemeralMessage, PersonProfile, PostedMessage, PublishedView, UploadedFile } from './slack/webApi.ts';
