// The question before an MCP tool call: server, tool, its title, the full arguments (whole, never cut: a long one
// goes behind the card's attachment as a script's file does), and what the server says of the tool, marked as
// the server's own claim.
import { visible } from '../text/visible.ts';
import type { McpToolEntry } from './toolCatalog.ts';

function duration(ms: number): string {
  const seconds = Math.round(ms / 1000);
  if (seconds < 120) return `${seconds} seconds`;
  const minutes = Math.round(seconds / 60);
  return minutes < 120 ? `${minutes} minutes` : `${Math.round(minutes / 60)} hours`;
}

/** The server's hints in words; undefined when it gives none. */
export function hintWords(annotations: McpToolEntry['annotations']): string | undefined {
  const words: string[] = [];
  if (annotations.readOnlyHint === true) words.push('read-only');
  if (annotations.readOnlyHint === false) words.push('may change things');
  if (annotations.destructiveHint === true) words.push('destructive');
  if (annotations.destructiveHint === false) words.push('not destructive');
  if (annotations.idempotentHint === true) words.push('safe to repeat');
  if (annotations.openWorldHint === true) words.push('reaches the outside world');
  if (annotations.openWorldHint === false) words.push('stays inside its own system');
  return words.length === 0 ? undefined : words.join(', ');
}

/** The arguments as pretty JSON, every line kept and every invisible character named. */
export function argumentsBlock(args: Record<string, unknown>): string[] {
  return JSON.stringify(args, null, 2)
    .split('\n')
    .map((line) => `    │ ${visible(line)}`);
}

/** `changed`: what the server changed in the tool since the requester's "yes for this thread" (toolDefinition.ts). */
export function mcpQuestion(
  entry: McpToolEntry,
  args: Record<string, unknown>,
  grant: { requesterId: string; ttlMs: number; routineId?: string } | undefined,
  changed?: readonly string[],
): { title: string; body: string } {
  const title = entry.title === undefined ? '' : ` ("${visible(entry.title)}")`;
  const lines = [
    ...(changed === undefined
      ? []
      : [`The MCP server ${entry.server} changed this tool since it was approved for this thread, so it is asked about again:`, ...changed.map((line) => `  • ${line}`)]),
    `Claude wants to call the tool ${visible(entry.tool)}${title} of the MCP server ${entry.server} (${visible(entry.fullName)}), with these arguments, whole:`,
    ...argumentsBlock(args),
  ];
  const hints = hintWords(entry.annotations);
  lines.push(hints === undefined ? 'The server says nothing of what this tool does to its data.' : `The server says of this tool (its own claim, not checked): ${hints}.`);
  if (entry.requiresUserInteraction) lines.push('The server asks that a person approve every call of this tool, so there is no "for this thread" answer.');
  if (grant?.routineId !== undefined) {
    lines.push(
      `"Yes, for this routine" covers calls of ${visible(entry.fullName)} with any arguments in every run of routine ${visible(grant.routineId)} ` +
        `(each in its own thread), until ${duration(grant.ttlMs)} after the answer or until the routine is removed, while the server describes the tool as it does now. ` +
        `Only its owner ${grant.requesterId} can give it; an approver's "yes" here counts for this run only. Another tool or a changed one asks again.`,
    );
  } else if (grant !== undefined) {
    lines.push(
      `"Yes, for this thread" covers calls of ${visible(entry.fullName)} asked by ${grant.requesterId}, in this thread only, with any arguments, ` +
        `until ${duration(grant.ttlMs)} after the answer, while the server describes the tool as it does now. Another tool, a changed one, or a request by someone else, asks again.`,
    );
  }
  return { title: `Call ${visible(entry.fullName)} (MCP server ${entry.server})?`, body: lines.join('\n') };
}
