// The loopback fake of the Anthropic Messages API (see docs/testing.md). Import from here.
export { startFakeAnthropic } from './anthropic/server.ts';
export type { FakeAnthropic, FakeAnthropicOptions } from './anthropic/server.ts';
export type { CacheStats, RecordedRequest, RequestOutcome } from './anthropic/recordedRequest.ts';
export { echoBrain, lastToolResult, lastUserText, roundOf, scripted, stepsBrain, textReply, toolUseReply } from './anthropic/brain.ts';
export type { Brain, BrainReply, BrainRequest, ReplyBlock, StopReason, ToolResultView } from './anthropic/brain.ts';
export type { Fault, FaultKind, FaultRateOptions, HttpFault } from './anthropic/faults.ts';
export type { AssistantMessage, FakeUsage } from './anthropic/assistantMessage.ts';
export type { MessagesRequest, RequestMessage, RequestTool } from './anthropic/requestSchema.ts';
export { SAMPLING_FREE_VERSION } from './anthropic/requestRules.ts';
