// How Slack takes a long answer: the profile the one splitter (src/text/splitMessage.ts) cuts mrkdwn with.
import type { SplitProfile } from '../../src/text/splitMessage.ts';

/** Slack asks for at most 4,000 characters of `text` per message; this leaves room for the fences a cut adds. */
export const SLACK_TEXT_LIMIT = 3900;

export const CUT_NOTE = '_(The answer was longer than Slack allows; the rest was cut.)_';

export const SLACK_MESSAGES: SplitProfile = {
  limit: SLACK_TEXT_LIMIT,
  // Beyond ten messages the rest is cut (Slack truncates a single message at 40,000 anyway).
  maxParts: 10,
  cutNote: CUT_NOTE,
  // A cut inside `<url|label>` or `&amp;` would break the link or show the escape.
  keepTogether: /<[^<>\n]*>|&[a-zA-Z0-9#]{1,8};/,
};
