// How an approval looks in Slack: the question with three buttons, then the same message with the outcome.
import type { types } from '@slack/bolt';
import { shortHash } from '../../src/hitl/gate.ts';
import { SYSTEM_DECIDER_PREFIX } from '../../src/hitl/approvals.ts';
import type { ApprovalOption, ApprovalRecord } from '../../src/hitl/types.ts';
import { safeText } from './slackText.ts';

export type SlackBlock = types.KnownBlock;

/** The public contract (DESIGN.md): button action ids, each button's value is the approval id. */
export const APPROVAL_ACTION_IDS: Record<ApprovalOption, string> = {
  yes_once: 'hitl_yes_once',
  yes_in_session: 'hitl_yes_in_session',
  no: 'hitl_no',
};

export function optionOfAction(actionId: string): ApprovalOption | undefined {
  const entry = Object.entries(APPROVAL_ACTION_IDS).find(([, id]) => id === actionId);
  return entry?.[0] as ApprovalOption | undefined;
}

const BUTTON_LABELS: Record<ApprovalOption, string> = {
  yes_once: 'Yes, once',
  yes_in_session: 'Yes, for this thread',
  no: 'No',
};

/** Section text is limited to 3,000 characters by Slack. */
const BODY_LIMIT = 2800;

/** A person as mrkdwn: a mention for a Slack user id, the text otherwise (never a broadcast). */
export function person(id: string): string {
  return /^[UW][A-Z0-9]{2,}$/.test(id) ? `<@${id}>` : safeText(id);
}

function codeBlock(text: string): string {
  const body = text.length > BODY_LIMIT ? `${text.slice(0, BODY_LIMIT)}…` : text;
  return `\`\`\`${safeText(body).replace(/```/g, '``\u200b`')}\`\`\``;
}

function deadline(record: ApprovalRecord): string {
  const seconds = Math.floor(record.expiresAt / 1000);
  return `<!date^${seconds}^{time}|${new Date(record.expiresAt).toISOString()}>`;
}

/** The question's text blocks (kept when the message is updated with the outcome). */
function questionBlocks(record: ApprovalRecord): SlackBlock[] {
  return [
    { type: 'section', text: { type: 'mrkdwn', text: `:lock: *${safeText(record.title)}*` } },
    { type: 'section', text: { type: 'mrkdwn', text: codeBlock(record.body) } },
    {
      type: 'context',
      elements: [
        {
          type: 'mrkdwn',
          text: `Skill \`${safeText(record.skillId)}\` · content \`${shortHash(record.skillHash)}\` · asked by ${person(record.requesterId)}`,
        },
      ],
    },
  ];
}

export function approvalFallbackText(record: ApprovalRecord): string {
  return `Approval needed: ${safeText(record.title)}`;
}

export function approvalBlocks(record: ApprovalRecord): SlackBlock[] {
  const buttons: types.Button[] = record.options.map((option) => ({
    type: 'button',
    action_id: APPROVAL_ACTION_IDS[option],
    text: { type: 'plain_text', text: BUTTON_LABELS[option] },
    value: record.id,
    ...(option === 'yes_once' ? { style: 'primary' as const } : option === 'no' ? { style: 'danger' as const } : {}),
  }));
  return [
    ...questionBlocks(record),
    {
      type: 'context',
      elements: [
        {
          type: 'mrkdwn',
          text: `Only ${person(record.requesterId)} or this channel's approvers can answer. No answer by ${deadline(record)} counts as *${BUTTON_LABELS[record.defaultOption]}*.`,
        },
      ],
    },
    { type: 'actions', block_id: `hitl:${record.id}`, elements: buttons },
  ];
}

/** One line saying how an approval ended and who decided. */
export function outcomeText(record: ApprovalRecord): string {
  const by = record.decidedBy ?? '';
  const system = by === '' || by.startsWith(SYSTEM_DECIDER_PREFIX);
  switch (record.outcome) {
    case 'yes_once':
      return `:white_check_mark: Approved once by ${person(by)}.`;
    case 'yes_in_session':
      return `:white_check_mark: Approved for this thread by ${person(by)}.`;
    case 'no':
      return system ? ':no_entry_sign: Nobody could be asked, so the default (no) applied: not run.' : `:no_entry_sign: Declined by ${person(by)}: not run.`;
    case 'timeout':
      return ':hourglass: Expired: nobody answered in time, not run.';
    case 'expired':
      return ':hourglass: Expired: the bot restarted or shut down before anyone answered, not run.';
    default:
      return 'Resolved.';
  }
}

/** The message once resolved: the question stays readable, the buttons are gone, the outcome is shown. */
export function resolvedBlocks(record: ApprovalRecord): SlackBlock[] {
  return [...questionBlocks(record), { type: 'section', text: { type: 'mrkdwn', text: outcomeText(record) } }];
}

export function resolvedFallbackText(record: ApprovalRecord): string {
  return `${safeText(record.title)} ${outcomeText(record)}`;
}
