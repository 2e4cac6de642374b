// The controls on a running turn's message: a Stop button (public contract: action_id `turn_stop`, value = the
// turn id). What a click does is the stop handler's business (registered beside the approval clicks).
import type { SlackBlock } from './slackBlock.ts';

export const TURN_STOP_ACTION_ID = 'turn_stop';

/** The Stop button, alone (what a streamed message starts with). */
export function stopControls(turnId: string): SlackBlock[] {
  return [
    {
      type: 'actions',
      block_id: 'turn_controls',
      elements: [{ type: 'button', action_id: TURN_STOP_ACTION_ID, text: { type: 'plain_text', text: 'Stop' }, value: turnId }],
    },
  ] as SlackBlock[];
}

/** Slack refuses a section whose text is longer. */
const SECTION_TEXT_LIMIT = 3000;

/** What the turn shows so far (mrkdwn) with the Stop button under it. */
export function progressBlocks(text: string, turnId: string): SlackBlock[] {
  return [{ type: 'section', text: { type: 'mrkdwn', text: text.slice(0, SECTION_TEXT_LIMIT) } } as SlackBlock, ...stopControls(turnId)];
}
