// How an approval looks in Discord: the question with three buttons (or its full text attached), then the outcome.
import { ButtonStyle, ComponentType, escapeMarkdown } from 'discord.js';
import { type ApprovalOption, type ApprovalRecord, SYSTEM_DECIDER_PREFIX } from '../../src/platform/index.ts';
import type { MessageBody } from './discordApi.ts';
import { pickNote, pickRows, repickedText } from './installPicks.ts';
import { DISCORD_MESSAGE_LIMIT } from './messageLimits.ts';

const BUTTONS: Record<ApprovalOption, { label: string; style: ButtonStyle }> = {
  yes_once: { label: 'Run once', style: ButtonStyle.Success },
  yes_in_session: { label: 'Allow in this thread', style: ButtonStyle.Primary },
  no: { label: "Don't run", style: ButtonStyle.Danger },
};

const VERDICTS: Record<ApprovalOption, string> = {
  yes_once: '✅ **Approved once**',
  yes_in_session: '✅ **Approved for this thread**',
  no: '⛔ **Not run**',
};

const CUSTOM_ID_MAX = 100;

/** A routine's run offers "for this routine" (a grant for its every run) where a thread's offers "for this thread". */
function buttonLabel(record: ApprovalRecord, option: ApprovalOption): string {
  return option === 'yes_in_session' && record.routineId !== undefined ? 'Allow for this routine' : BUTTONS[option].label;
}

/** `hitl:<approvalId>:<option>` (docs/contract.md); Discord caps custom_id at 100 characters. */
export function customId(approvalId: string, option: ApprovalOption): string {
  const id = `hitl:${approvalId}:${option}`;
  if (id.length > CUSTOM_ID_MAX) throw new RangeError(`approval id ${approvalId} makes a custom_id longer than ${CUSTOM_ID_MAX} characters`);
  return id;
}

/** The approval id and option a button carries; undefined for any other custom_id. */
export function parseCustomId(value: string): { approvalId: string; option: string } | undefined {
  const match = /^hitl:([^:]{1,90}):([a-z_]{1,30})$/.exec(value);
  return match?.[1] && match[2] ? { approvalId: match[1], option: match[2] } : undefined;
}

/** The body in a code block that its own backticks cannot close. */
function codeBlock(body: string): string {
  return `\`\`\`\n${body.replaceAll('```', '`\u200b``')}\n\`\`\``;
}

/** The file a question too long for its message comes with: the whole text, every invisible character named. */
export function attachmentName(record: ApprovalRecord): string {
  return `approval-${record.id}.txt`;
}

/**
 * The message: what will run in full, escaped first and then measured. It is never cut: when it does not fit,
 * the message says so and the whole text goes with it as an attachment (`files`, on the question only: an
 * edit keeps it).
 */
function compose(record: ApprovalRecord, head: string, foot: string): { content: string; attach: boolean } {
  const whole = `${head}\n${codeBlock(record.body)}\n${foot}`;
  if (whole.length <= DISCORD_MESSAGE_LIMIT) return { content: whole, attach: false };
  const notice =
    `📎 What will run is ${record.body.length} characters long, more than a Discord message holds, so it is not shown here: ` +
    `it is attached in full as \`${attachmentName(record)}\`. Read all of it before answering.`;
  return { content: `${head}\n${notice}\n${foot}`, attach: true };
}

/** The question: what will run, who asked, what happens without an answer; three buttons. Notifies the requester only. */
export function questionMessage(record: ApprovalRecord): MessageBody {
  const head = `🔐 **Approval needed:** ${escapeMarkdown(record.title)}`;
  const deadline = Math.floor(record.expiresAt / 1000);
  const fallback = buttonLabel(record, record.defaultOption);
  const foot =
    record.answerers === undefined
      ? `<@${record.requesterId}>, run this? Without an answer <t:${deadline}:R>, the choice is **${fallback}**.`
      : `Only this channel's installers can answer. Without an answer <t:${deadline}:R>, the choice is **${fallback}**.${pickNote(record)}`;
  const { content, attach } = compose(record, head, foot);
  return {
    content,
    ...(attach ? { files: [{ name: attachmentName(record), content: `${record.title}\n\n${record.body}\n` }] } : {}),
    components: [
      ...pickRows(record),
      {
        type: ComponentType.ActionRow,
        components: record.options.map((option) => ({
          type: ComponentType.Button,
          custom_id: customId(record.id, option),
          label: buttonLabel(record, option),
          style: BUTTONS[option].style,
        })),
      },
    ],
    notify: [record.requesterId],
  };
}

/** Why a resolution happened, in words. */
export function describeOutcome(record: ApprovalRecord): string {
  const by = record.decidedBy ?? '';
  const option = record.option ?? record.defaultOption;
  // Only the owner's answer is kept for the routine's later runs (gate.ts).
  const routineVerdict = by === record.requesterId ? '✅ **Approved for this routine**' : "✅ **Approved for this run** (only the routine's owner can approve it for the routine)";
  const verdict = option === 'yes_in_session' && record.routineId !== undefined ? routineVerdict : VERDICTS[option];
  if (record.repicked !== undefined) return repickedText(record.repicked);
  if (!by.startsWith(SYSTEM_DECIDER_PREFIX) && by !== '') return `${verdict} by <@${by}>.`;
  switch (record.outcome) {
    case 'timeout':
      return `${verdict}: nobody answered in time.`;
    case 'expired':
      return `${verdict}: the question lapsed (the bot restarted or stopped before an answer).`;
    default:
      return `${verdict}: nobody could be asked.`;
  }
}

/** The question once answered: buttons gone, the outcome and who decided shown. */
export function resolvedMessage(record: ApprovalRecord): MessageBody {
  const head = `🔐 **Approval:** ${escapeMarkdown(record.title)}`;
  return { content: compose(record, head, describeOutcome(record)).content, components: [] };
}
