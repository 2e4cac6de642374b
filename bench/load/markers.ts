// Every user message carries a marker `m-<chat>-<n>`; the fake model echoes it, so each reply maps to its message.

export const MARKER = /\bm-\d+-\d+\b/;

/**
 * The final answer's whole text, led by the sentence written before a tool call when there was one (the turn's
 * one message holds both): anything else holding a marker (a streamed preview, a cut reply) is not final.
 */
const FINAL_REPLY = /^(?:m-\d+-\d+: I'll load the skill first\.\n\n)?reply (m-\d+-\d+) done(?: script=(ran|notrun))?$/;

export function markerOf(chat: number, n: number): string {
  return `m-${chat}-${n}`;
}

/** Messages 3 and 7 of every `every`-th chat ask for the script skill (the second one should use the grant). */
export function asksForScript(chat: number, n: number, every: number): boolean {
  return chat % every === 0 && (n === 3 || n === 7);
}

/** Message 5 of every chat asks about the style guide: the model loads a skill (no question asked) first. */
export function asksForStyle(n: number): boolean {
  return n === 5;
}

/** What the person writes. The first message of a chat @mentions the bot in the channel. */
export function userText(chat: number, n: number, botUserId: string, script: boolean): string {
  const marker = markerOf(chat, n);
  const body = script ? `${marker} please count the files` : asksForStyle(n) ? `${marker} what does the style guide say?` : `${marker} what is the plan for today?`;
  return n === 0 ? `<@${botUserId}> ${body}` : body;
}

/** What the model writes before a tool call. */
export function preambleText(marker: string): string {
  return `${marker}: I'll load the skill first.`;
}

/**
 * Which messages' texts a version of a bot message holds: `answer` (the final reply, or a part of it long enough
 * to name its marker whole) and `preamble` (the sentence before a tool call). A marker cut off at the end of a
 * partial text names nothing.
 */
export function textsIn(text: string): Array<{ marker: string; kind: 'answer' | 'preamble' }> {
  const found: Array<{ marker: string; kind: 'answer' | 'preamble' }> = [];
  for (const match of text.matchAll(/reply (m-\d+-\d+)(?=[^\d-])/g)) if (match[1]) found.push({ marker: match[1], kind: 'answer' });
  for (const match of text.matchAll(/(m-\d+-\d+): I'll load/g)) if (match[1]) found.push({ marker: match[1], kind: 'preamble' });
  return found;
}

export function finalReplyText(marker: string, script?: 'ran' | 'notrun'): string {
  return script === undefined ? `reply ${marker} done` : `reply ${marker} done script=${script}`;
}

export function parseFinalReply(text: string): { marker: string; script?: 'ran' | 'notrun' } | undefined {
  const match = FINAL_REPLY.exec(text);
  if (!match?.[1]) return undefined;
  return match[2] === 'ran' || match[2] === 'notrun' ? { marker: match[1], script: match[2] } : { marker: match[1] };
}
