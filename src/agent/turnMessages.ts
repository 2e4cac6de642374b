// The turn's messages on the way in (the person's files before their words) and on the way out (what history keeps
// of them, and what the person reads for each way a model step can end).
import type { ContentBlockParam, MessageParam } from '@anthropic-ai/sdk/resources/messages';
import { historyFileBlocks, historyToolImages } from './inputFiles.ts';
import type { LoopResult } from './loop.ts';
import { ModelRequestError } from './modelCall.ts';

/** The opening's first message (the person's words) with the files' blocks before its text. */
export function withFiles(opening: MessageParam[], blocks: ContentBlockParam[]): MessageParam[] {
  const [first, ...rest] = opening;
  if (blocks.length === 0 || first === undefined || typeof first.content !== 'string') return opening;
  const text = first.content.trim() === '' ? '(No words: the files above are the message.)' : first.content;
  return [{ role: 'user', content: [...blocks, { type: 'text', text }] }, ...rest];
}

/** The person's message as its text alone (the file blocks are put back in their history form). */
function textOnly(message: MessageParam): MessageParam {
  if (typeof message.content === 'string') return message;
  const text = message.content.at(-1);
  return { role: message.role, content: text?.type === 'text' ? text.text : '' };
}

/**
 * What history keeps of a turn: its messages even when the model failed (the user's words are never lost), files
 * and images in their history form. A stopped turn says so, so the model does not take up the stopped work on its
 * own next turn.
 */
export function historyOfTurn(messages: MessageParam[], filesIn: ContentBlockParam[], stopped: boolean): MessageParam[] {
  const kept =
    filesIn.length === 0
      ? historyToolImages(messages)
      : withFiles(messages.slice(0, 1).map(textOnly), historyFileBlocks(filesIn)).concat(historyToolImages(messages.slice(1)));
  return stopped ? [...kept, { role: 'assistant', content: '(The person stopped this turn here.)' }] : kept;
}

/** What a stopped turn answers where the platform has no way of naming the person (the terminal). */
export const stoppedText = (by: string) => `Stopped by ${by}.`;

const unreachableReply =
  'I could not reach Claude just now, so I have no answer yet. Your message is kept: send another message to try again.';

type ModelStepStatus = 'answered' | 'model_unavailable' | 'model_refused' | 'capped' | 'stopped';

/** How the model step ended, and the answer the person reads for it; `error`: what to log when it failed. */
export function replyOf(result: LoopResult, stoppedBy: string | undefined): { status: ModelStepStatus; reply: string; error?: string } {
  if (stoppedBy !== undefined) return { status: 'stopped', reply: stoppedText(stoppedBy) };
  if (result.ok) return { status: result.capped ? 'capped' : 'answered', reply: result.reply || '(The model finished without a written answer.)' };
  if ('error' in result && result.error instanceof ModelRequestError) {
    return { status: 'model_refused', reply: `I could not get an answer: ${result.error.message}`, error: result.error.message };
  }
  return { status: 'model_unavailable', reply: unreachableReply, error: 'error' in result ? result.error.message : 'stopped' };
}
