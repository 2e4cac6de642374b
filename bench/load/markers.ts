// Every user message carries a marker `m-<chat>-<n>`; the fake model echoes it, so each reply maps to its message.

export const MARKER = /\bm-\d+-\d+\b/;

/** The final answer's whole text: anything else holding a marker (a streamed preview, a cut reply) is not final. */
const FINAL_REPLY = /^reply (m-\d+-\d+) done(?: script=(ran|notrun))?$/;

export function markerOf(chat: number, n: number): string {
  return `m-${chat}-${n}`;
}

/** Messages 3 and 7 of every `every`-th chat ask for the script skill (the second one should use the grant). */
export function asksForScript(chat: number, n: number, every: number): boolean {
  return chat % every === 0 && (n === 3 || n === 7);
}

/** What the person writes. The first message of a chat @mentions the bot in the channel. */
export function userText(chat: number, n: number, botUserId: string, script: boolean): string {
  const marker = markerOf(chat, n);
  const body = script ? `${marker} please count the files` : `${marker} what is the plan for today?`;
  return n === 0 ? `<@${botUserId}> ${body}` : body;
}

export function finalReplyText(marker: string, script?: 'ran' | 'notrun'): string {
  return script === undefined ? `reply ${marker} done` : `reply ${marker} done script=${script}`;
}

export function parseFinalReply(text: string): { marker: string; script?: 'ran' | 'notrun' } | undefined {
  const match = FINAL_REPLY.exec(text);
  if (!match?.[1]) return undefined;
  return match[2] === 'ran' || match[2] === 'notrun' ? { marker: match[1], script: match[2] } : { marker: match[1] };
}
