// The block type every Slack message here is built of: a leaf, so the API wrapper and the cards need not import
// each other for it.
import type { types } from '@slack/bolt';

export type SlackBlock = types.KnownBlock;
