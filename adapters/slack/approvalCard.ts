// How an approval looks in Slack: the question with three buttons, then the same message with the outcome.
import type { types } from '@slack/bolt';
import { type ApprovalOption, type ApprovalRecord, shortHash, SYSTEM_DECIDER_PREFIX } from '../../src/platform/index.ts';
import { visible } from '../../src/text/visible.ts';
import { pickBlocks, repickedText } from './installPicks.ts';
import type { SlackBlock } from './slackBlock.ts';
import { safeText } from './slackText.ts';

/** The public contract (docs/contract.md): button action ids, each button's value is the approval id. */
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

/** A routine's run offers "for this routine" (a grant for its every run) where a thread's offers "for this thread". */
function buttonLabel(record: ApprovalRecord, option: ApprovalOption): string {
  return option === 'yes_in_session' && record.routineId !== undefined ? 'Yes, for this routine' : BUTTON_LABELS[option];
}

/** Slack refuses a section whose text is longer. */
const SECTION_LIMIT = 3000;

/** A person as mrkdwn: a mention for a Slack user id, the text otherwise (never a broadcast). */
export function person(id: string): string {
  return /^[UW][A-Z0-9]{2,}$/.test(id) ? `<@${id}>` : safeText(id);
}

/**
 * What will run, whole, as a code block: escaped first, then measured (escaping lengthens it). Undefined when
 * it does not fit a section: it is never cut, the card attaches it in full instead (see approvalAttachment).
 */
function codeBlock(text: string): string | undefined {
  const block = `\`\`\`${safeText(text).replace(/```/g, '``\u200b`')}\`\`\``;
  return block.length <= SECTION_LIMIT ? block : undefined;
}

/**
 * The file a question too long for its card comes with: the whole text, as the core wrote it (every
 * invisible character already named). Undefined when the card shows it all.
 */
export function approvalAttachment(record: ApprovalRecord): { filename: string; title: string; content: string } | undefined {
  if (codeBlock(record.body) !== undefined) return undefined;
  return { filename: `approval-${record.id}.txt`, title: `What will run: ${record.title}`, content: `${record.title}\n\n${record.body}\n` };
}

function bodySection(record: ApprovalRecord): string {
  const block = codeBlock(record.body);
  if (block !== undefined) return block;
  return (
    `:page_facing_up: *What will run is ${record.body.length} characters long, more than a Slack message holds, so it is ` +
    `not shown here: it is attached in full in this thread as \`approval-${safeText(record.id)}.txt\`. Read all of it before answering.*`
  );
}

function deadline(record: ApprovalRecord): string {
  const seconds = Math.floor(record.expiresAt / 1000);
  return `<!date^${seconds}^{time}|${new Date(record.expiresAt).toISOString()}>`;
}

/** The question's text blocks (kept when the message is updated with the outcome). */
function questionBlocks(record: ApprovalRecord): SlackBlock[] {
  return [
    { type: 'section', text: { type: 'mrkdwn', text: `:lock: *${safeText(record.title)}*` } },
    { type: 'section', text: { type: 'mrkdwn', text: bodySection(record) } },
    {
      type: 'context',
      elements: [
        {
          type: 'mrkdwn',
          text:
            record.subject === 'mcp_tool'
              ? `MCP tool \`${safeText(visible(record.skillId))}\` · definition \`${shortHash(record.skillHash.slice(record.skillHash.indexOf(':') + 1))}\` · asked by ${person(record.requesterId)}`
              : `Skill \`${safeText(visible(record.skillId))}\` · content \`${shortHash(record.skillHash)}\` · asked by ${person(record.requesterId)}`,
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
    text: { type: 'plain_text', text: buttonLabel(record, option) },
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
          text: `${record.answerers === undefined ? `Only ${person(record.requesterId)} or this channel's approvers can answer` : "Only this channel's installers can answer"}. No answer by ${deadline(record)} counts as *${buttonLabel(record, record.defaultOption)}*.`,
        },
      ],
    },
    ...pickBlocks(record),
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
      if (record.routineId === undefined) return `:white_check_mark: Approved for this thread by ${person(by)}.`;
      // Only the owner's answer is kept for the routine's later runs (gate.ts).
      return by === record.requesterId
        ? `:white_check_mark: Approved for this routine by ${person(by)}.`
        : `:white_check_mark: Approved for this run by ${person(by)} (only the routine's owner can approve it for the routine).`;
    case 'no':
      if (record.repicked !== undefined) return repickedText(record.repicked);
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
