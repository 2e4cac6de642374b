// Text that reaches Slack from the model, a script or a user: shown, never interpreted as a control sequence.

/** U+2060 WORD JOINER: invisible, and it stops `@here` from reading as one word. */
const JOINER = '\u2060';

/**
 * Escapes the three characters Slack reserves (`&`, `<`, `>`). With `<` escaped, no `<!channel>`, `<!here>`,
 * `<!everyone>`, `<!subteam^…>`, `<@U…>` or `<#C…>` sequence can survive: they show as typed.
 */
export function escapeSlack(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** Breaks bare `@channel`, `@here`, `@everyone`, which a client or `link_names` could turn into broadcasts. */
export function neutraliseBroadcasts(text: string): string {
  return text.replace(/@(channel|here|everyone)\b/gi, `@${JOINER}$1`);
}

/** Untrusted plain text made safe for a mrkdwn field. */
export function safeText(text: string): string {
  return neutraliseBroadcasts(escapeSlack(text));
}
