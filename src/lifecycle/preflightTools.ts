// The built-in deterministic tools of preflight steps: the same inputs always give the same text. They read
// only what the turn already holds (the chat's history, the world's skills, the clock handed in), never the
// disk or the network, and never run skill code, so they need no approval.
import type { MessageParam } from '@anthropic-ai/sdk/resources/messages';
import type { Skill } from '../skills/types.ts';
import { type BuiltinPreflightTool, isBuiltinPreflightTool } from '../skills/toolNames.ts';

export interface PreflightToolContext {
  worldId: string;
  chatId: string;
  /** The chat's earlier messages, as the model will see them (the current message is not among them). */
  history: readonly MessageParam[];
  /** The skills the world may use, sorted by id. */
  skills: readonly Skill[];
  now: Date;
}

export type ToolResult = { ok: true; text: string } | { ok: false; reason: string };

type PreflightTool = (args: readonly string[], context: PreflightToolContext) => ToolResult;

const DEFAULT_RECENT = 10;
const MAX_RECENT = 50;
const MAX_MESSAGE_CHARS = 1000;

/** Plain text a person wrote or read: text blocks only; runtime-made exchanges (tool calls, results) are left out. */
function spokenText(message: MessageParam): string | undefined {
  if (typeof message.content === 'string') return message.content;
  if (message.content.some((block) => block.type === 'tool_result' || block.type === 'tool_use')) return undefined;
  const text = message.content.flatMap((block) => (block.type === 'text' ? [block.text] : [])).join('\n');
  return text === '' ? undefined : text;
}

function clip(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length <= MAX_MESSAGE_CHARS ? flat : `${flat.slice(0, MAX_MESSAGE_CHARS)}…`;
}

/** `recent_messages [N]`: the chat's last N messages (default 10, at most 50), one `role: text` line each. */
const recentMessages: PreflightTool = (args, context) => {
  if (args.length > 1) return { ok: false, reason: 'recent_messages takes at most one argument (how many messages)' };
  const count = args[0] === undefined ? DEFAULT_RECENT : Number(args[0]);
  if (!Number.isInteger(count) || count < 1 || count > MAX_RECENT) {
    return { ok: false, reason: `recent_messages wants a whole number from 1 to ${MAX_RECENT}, got ${JSON.stringify(args[0])}` };
  }
  const lines = context.history.flatMap((message) => {
    const text = spokenText(message);
    return text === undefined ? [] : [`${message.role}: ${clip(text)}`];
  });
  const recent = lines.slice(-count);
  return { ok: true, text: recent.length > 0 ? recent.join('\n') : '(no earlier messages in this chat)' };
};

/** `skill_list`: every skill this world may use, one `id: description` line each. */
const skillList: PreflightTool = (args, context) => {
  if (args.length > 0) return { ok: false, reason: 'skill_list takes no arguments' };
  if (context.skills.length === 0) return { ok: true, text: '(no skills available here)' };
  return { ok: true, text: context.skills.map((skill) => `${skill.id}: ${skill.description}`).join('\n') };
};

/** `current_time [IANA zone]`: the date and time in the zone (default UTC), with the exact UTC instant. */
const currentTime: PreflightTool = (args, context) => {
  if (args.length > 1) return { ok: false, reason: 'current_time takes at most one argument (an IANA time zone)' };
  const zone = args[0] ?? 'UTC';
  let local: string;
  try {
    local = new Intl.DateTimeFormat('en-GB', { timeZone: zone, dateStyle: 'full', timeStyle: 'long' }).format(context.now);
  } catch {
    return { ok: false, reason: `current_time: ${JSON.stringify(zone)} is not an IANA time zone such as Europe/Paris` };
  }
  return { ok: true, text: `${local} (${zone}; ${context.now.toISOString()})` };
};

const TOOLS: Record<BuiltinPreflightTool, PreflightTool> = {
  recent_messages: recentMessages,
  skill_list: skillList,
  current_time: currentTime,
};

/** Runs a built-in tool. An unknown name is a result too (validation normally refuses it first). */
export function runPreflightTool(name: string, args: readonly string[], context: PreflightToolContext): ToolResult {
  if (!isBuiltinPreflightTool(name)) return { ok: false, reason: `there is no built-in preflight tool named ${JSON.stringify(name)}` };
  return TOOLS[name](args, context);
}
