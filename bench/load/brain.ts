// The fake model of the run: answers every message with its marker; a message that says "count" first loads
// the script skill (which asks for approval unless a grant covers it) and reports whether the script ran.
import { lastToolResult, textReply, toolUseReply, type Brain, type BrainRequest } from '../../tests/fakes/anthropic.ts';
import { finalReplyText, MARKER } from './markers.ts';
import { SCRIPT_OUTPUT, SCRIPT_SKILL_ID } from './skillFixture.ts';

/** The turn's own user message: the last user message whose text carries a marker (tool results carry none). */
function currentMessage(req: BrainRequest): { marker: string; text: string; index: number } | undefined {
  for (let index = req.messages.length - 1; index >= 0; index--) {
    const message = req.messages[index];
    if (message?.role !== 'user') continue;
    const blocks = typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : message.content;
    for (const block of blocks) {
      if (block.type !== 'text' || typeof block.text !== 'string') continue;
      const marker = MARKER.exec(block.text)?.[0];
      if (marker) return { marker, text: block.text, index };
    }
  }
  return undefined;
}

export const loadBrain: Brain = (req) => {
  const current = currentMessage(req);
  if (!current) return textReply('reply without a marker');
  if (!/\bcount\b/.test(current.text)) return textReply(finalReplyText(current.marker));
  // Nothing after the user's message yet: load the skill first.
  if (current.index === req.messages.length - 1) return toolUseReply('load_skill', { skill_id: SCRIPT_SKILL_ID });
  const ran = lastToolResult(req)?.content.includes(SCRIPT_OUTPUT) === true;
  return textReply(finalReplyText(current.marker, ran ? 'ran' : 'notrun'));
};
