// The fake model of the run: answers every message with its marker. A message that says "count" first loads
// the script skill (which asks for approval unless a grant covers it) and reports whether the script ran; one
// that asks about the style guide loads that skill first. Before a tool call it writes a sentence, as Claude does
// ("I'll load the skill."), which must show once like any text.
import { lastToolResult, textReply, toolUseReply, type Brain, type BrainReply, type BrainRequest } from '../../tests/fakes/anthropic.ts';
import { finalReplyText, MARKER, preambleText } from './markers.ts';
import { SCRIPT_OUTPUT, SCRIPT_SKILL_ID, STYLE_SKILL_ID } from './skillFixture.ts';

/** Quoted channel content the bot adds to a turn (docs/agent.md): context, not the person's request. */
const CONTEXT = /^<channel_context>/;

/**
 * The turn's own user message: the last user message whose text carries a marker (tool results carry none),
 * read as Claude reads it: the quoted context beside it names other messages' markers and asks nothing.
 */
function currentMessage(req: BrainRequest): { marker: string; text: string; index: number } | undefined {
  for (let index = req.messages.length - 1; index >= 0; index--) {
    const message = req.messages[index];
    if (message?.role !== 'user') continue;
    const blocks = typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : message.content;
    for (const block of blocks) {
      if (block.type !== 'text' || typeof block.text !== 'string' || CONTEXT.test(block.text)) continue;
      const marker = MARKER.exec(block.text)?.[0];
      if (marker) return { marker, text: block.text, index };
    }
  }
  return undefined;
}

/** A sentence, then the tool call. */
function textThenTool(text: string, skillId: string): BrainReply {
  return { content: [{ type: 'text', text }, ...toolUseReply('load_skill', { skill_id: skillId }).content] };
}

export const loadBrain: Brain = (req) => {
  const current = currentMessage(req);
  if (!current) return textReply('reply without a marker');
  const script = /\bcount\b/.test(current.text);
  const style = /\bstyle guide\b/.test(current.text);
  if (!script && !style) return textReply(finalReplyText(current.marker));
  // Nothing after the user's message yet: say so, and load the skill first.
  if (current.index === req.messages.length - 1) return textThenTool(preambleText(current.marker), script ? SCRIPT_SKILL_ID : STYLE_SKILL_ID);
  if (style) return textReply(finalReplyText(current.marker));
  const ran = lastToolResult(req)?.content.includes(SCRIPT_OUTPUT) === true;
  return textReply(finalReplyText(current.marker, ran ? 'ran' : 'notrun'));
};
