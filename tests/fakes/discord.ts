// The loopback fake of the Discord REST API and gateway (see docs/discord.md). Import from here.
export { startFakeDiscord } from './discord/server.ts';
export type { FakeDiscord, FakeDiscordOptions, RecordedRestRequest } from './discord/server.ts';
export { INTENTS } from './discord/gateway.ts';
export type { GatewayStats } from './discord/gateway.ts';
export { pingsOf } from './discord/mentions.ts';
export type { AllowedMentions } from './discord/mentions.ts';
export { snowflakeTime } from './discord/snowflake.ts';
export type { FakeChannel, FakeInteraction, FakeMessage, FakeUser } from './discord/world.ts';
export type { ShownModal } from './discord/modals.ts';
