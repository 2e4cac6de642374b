// The platform contract: the one module a platform adapter imports from the core (beside src/text and the
// logger's type; lint holds them to it). What a platform implements (a launcher, a port and its turn sink, an
// approval presenter, a membership source), the narrow Core it is given, and the few shared rules and words a
// platform must apply the same way as the others (ids, stop, the install command's grammar, bounded downloads).
export type { PlatformLauncher, RunningPlatform } from './launchers.ts';
export type { Core, CoreMcp, McpTaskView } from './core.ts';
export type { AdapterState } from './adapterState.ts';
export type { ContextMessage, ContextRequest, IncomingMessage, MessageFile, OutgoingFile, PlatformPort, TurnSink } from './port.ts';
export { boundedBody } from './download.ts';

// Approvals as a platform shows and answers them.
export type { ApprovalOption, ApprovalPresenter, ApprovalRecord, Grant, ResponseResult } from '../approvals/index.ts';
export { shortHash, SYSTEM_DECIDER_PREFIX, SYSTEM_DECIDERS } from '../approvals/index.ts';

// Turns and chats: ids, queueing, stopping.
export type { AcceptResult } from '../chats/dispatcher.ts';
export type { DeliveryDedupe } from '../chats/deliveryDedupe.ts';
export { chatId, discordWorldId, parseChatId, parseWorldId, slackWorldId } from '../chats/ids.ts';
export { isStopText, STOP_NOT_ALLOWED_TEXT, type StopResult } from '../chats/stop.ts';

// What a platform reads of settings, and the edges it plugs into.
export { type Config, ConfigError } from '../config/config.ts';
export type { HttpServer } from '../ops/httpServer.ts';
export type { Membership, MembershipSource } from '../access/membership.ts';
export type { Skill } from '../skills/types.ts';
export { closestIds } from '../skills/closest.ts';

// Commands every platform parses the same way.
export { INSTALL_USAGE, type InstallCommand, type InstallPlace, parseInstallCommand } from '../install/index.ts';
export { signInText } from '../mcp/signIn.ts';
export { isMcpCommand } from './mcpCommand.ts';

// Servers' questions (docs/mcp.md, "Questions"): what a platform shows, and the fields of a form.
export type { AnswerResult, McpQuestion, QuestionPresenter } from '../mcp/questions/questionTypes.ts';
export { type QuestionField, questionFields } from '../mcp/questions/questionForm.ts';
