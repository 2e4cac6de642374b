import { ButtonStyle, ComponentType, escapeMarkdown } from 'discord.js';
import { SYSTEM_DECIDER_PREFIX } from '../../src/hitl/approvals.ts';
import type { ApprovalOption, ApprovalRecord } from '../../src/hitl/types.ts';
import type { MessageBody } from './discordApi.ts';
import { DISCORD_MESSAGE_LIMIT } from './split.ts';

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

/** `hitl:<approvalId>:<option>` (DESIGN.md); Discord caps custom_id at 100 characters. */
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

/** The body in a code block that its own backticks cannot close, cut to leave room for the rest. */
function codeBlock(body: string, room: number): string {
  const safe = body.replaceAll('```', '`\u200b``');
  const clipped = safe.length > room ? `${safe.slice(0, Math.max(0, room - 1))}…` : safe;
  return `\`\`\`\n${clipped}\n\`\`\``;
}

function compose(head: string, body: string, foot: string): string {
  const room = DISCORD_MESSAGE_LIMIT - head.length - foot.length - 12;
  return `${head}\n${codeBlock(body, room)}\n${foot}`;
}

/** The question: what will run, who asked, what happens without an answer; three buttons. Notifies the requester only. */
export function questionMessage(record: ApprovalRecord): MessageBody {
  const head = `🔐 **Approval needed:** ${escapeMarkdown(record.title)}`;
  const deadline = Math.floor(record.expiresAt / 1000);
  const fallback = BUTTONS[record.defaultOption].label;
  const foot = `<@${record.requesterId}>, run this? Without an answer <t:${deadline}:R>, the choice is **${fallback}**.`;
  return {
    content: compose(head, record.body, foot),
    components: [
      {
        type: ComponentType.ActionRow,
        components: record.options.map((option) => ({
          type: ComponentType.Button,
          custom_id: customId(record.id, option),
          label: BUTTONS[option].label,
          style: BUTTONS[option].style,
        })),
      },
    ],
    notify: [record.requesterId],
  };
}

/** Why a resolution happened, in words. */
export function describeOutcome(record: ApprovalRecord): string {
  const verdict = VERDICTS[record.option ?? record.defaultOption];
  const by = record.decidedBy ?? '';
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
  return { content: compose(head, record.body, describeOutcome(record)), components: [] };
}
