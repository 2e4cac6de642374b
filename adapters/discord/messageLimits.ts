// How Discord takes a long answer: the profile the one splitter (src/text/splitMessage.ts) cuts Markdown with.
import type { SplitProfile } from '../../src/text/splitMessage.ts';

/** Discord refuses a message over 2,000 characters. */
export const DISCORD_MESSAGE_LIMIT = 2000;

export const DISCORD_MESSAGES: SplitProfile = { limit: DISCORD_MESSAGE_LIMIT };
