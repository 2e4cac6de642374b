// Claude's own bash tool, run by skillbot: each command runs in the chat's sandbox (the workspace at /workspace as
// its working directory, the chat's loaded skills at /skills/<id>, no network unless the world's `network` list
// holds `bash`), and only after a person approved that exact command (or a "yes for this thread" grant for shell
// commands of this requester covers it). Each command starts a fresh shell: files persist, shell state does not.
import type { ToolBash20250124 } from '@anthropic-ai/sdk/resources/messages';
import { z } from 'zod';
import { worldAllowsNetwork } from '../../config/config.ts';
import { authorize, notRunSentence, runAuditEntry, SHELL_CONTENT } from '../../approvals/index.ts';
import { missingDependencyHint } from '../../skills/dependencies/index.ts';
import { visible } from '../../text/visible.ts';
import type { Tool, ToolResult } from '../../tools/contract.ts';
import { loadedSkillMounts } from '../loadedSkills.ts';
import { changedFiles, changesText, deliverOutputs } from '../runReport.ts';
import type { ToolContext, ToolDeps, TurnContext } from '../turnContext.ts';

/** The tool's name, and the name grants, audit records and metrics give the shell. */
const SHELL_ID = 'bash';

/** Anthropic's own client tool, in the newest version API version 2026-10-21 accepts: Claude uses it without instructions. */
const definition: ToolBash20250124 = { type: 'bash_20250124', name: SHELL_ID };

const bashInput = z.object({ command: z.string().max(100_000).optional(), restart: z.boolean().optional() });

const RESTARTED =
  'The shell was restarted. (Every command already starts a fresh bash in /workspace: files in the workspace persist, ' +
  'variables and the current directory do not.)';

/** One command line as the progress line shows it: its first line, cut. */
function shortCommand(command: string): string {
  const first = command.split('\n')[0] ?? '';
  return visible(first.length > 80 || command.includes('\n') ? `${first.slice(0, 80)}…` : first);
}

function outputText(stdout: string, stderr: string): string {
  const parts = [stdout.trimEnd(), stderr.trimEnd()].filter((part) => part !== '');
  return parts.join('\n');
}

async function runCommand(deps: ToolDeps, turn: TurnContext, input: z.infer<typeof bashInput>): Promise<ToolResult> {
  if (input.restart === true && input.command === undefined) return { content: RESTARTED };
  const command = input.command;
  if (command === undefined || command.trim() === '') return { content: 'bash needs a non-empty "command".', isError: true };

  const item = { kind: 'command' as const, path: command, args: [] };
  turn.progress(`Waiting for approval to run \`${shortCommand(command)}\`…`);
  const decision = await authorize(
    { approvals: deps.approvals, grants: deps.grants, audit: deps.audit },
    {
      worldId: turn.worldId,
      chatId: turn.chatId,
      requesterId: turn.requesterId,
      skill: { id: SHELL_ID, hash: SHELL_CONTENT },
      subject: 'shell',
      items: [item],
      timeoutMs: turn.settings.approvalTimeoutMs,
      turnId: turn.turnId,
      resumeKey: turn.nextApprovalKey(),
      ...(turn.routineId === undefined ? {} : { routineId: turn.routineId }),
    },
  );
  if (!decision.allowed) {
    return { content: notRunSentence(decision.outcome, decision.decidedBy).replace('The script did not run', 'The command did not run'), isError: true };
  }
  turn.progress(`Running \`${shortCommand(command)}\`…`);
  const mounts = await loadedSkillMounts(deps, turn);
  const result = await deps.executor.run({
    shell: command,
    workspace: turn.workspace,
    skills: mounts,
    timeoutMs: deps.scriptTimeoutMs,
    signal: turn.signal,
    network: worldAllowsNetwork(turn.settings, SHELL_ID),
    egressAllow: turn.settings.egressAllow,
    credentials: turn.settings.credentials,
    chatId: turn.chatId,
  });
  if (result.networkNotice !== undefined) turn.notice(`A shell command: ${result.networkNotice}`);
  const scope = { worldId: turn.worldId, chatId: turn.chatId, turnId: turn.turnId, requesterId: turn.requesterId, skill: { id: SHELL_ID, hash: SHELL_CONTENT }, ...(decision.approvalId === undefined ? {} : { approvalId: decision.approvalId }), ...(decision.decidedBy === undefined ? {} : { decidedBy: decision.decidedBy }) };
  await deps.audit.record(runAuditEntry(scope, item, result));
  deps.logger.info({ chatId: turn.chatId, turnId: turn.turnId, tool: SHELL_ID, status: result.status, ms: result.durationMs }, 'shell command ran');

  const report = result.workspace;
  const delivery = report === undefined || result.status === 'stopped' ? [] : await deliverOutputs(turn.workspace.dir, report, 'a shell command', turn.fileLimits, turn.upload);
  for (const line of delivery) if (line.startsWith('Not delivered')) turn.notice(line);
  if (report?.limitReached !== undefined) turn.notice(`A shell command stopped: ${report.limitReached}.`);
  const missing = result.status === 'failed' ? missingDependencyHint(`${result.stderr}\n${result.stdout}`, result.exitCode, mounts) : undefined;
  if (missing !== undefined) turn.notice(`A shell command failed: ${missing}`);
  const parts = [outputText(result.stdout, result.stderr)];
  if (result.stdoutTruncated || result.stderrTruncated) parts.push(`(output cut: ${result.stdoutDroppedBytes + result.stderrDroppedBytes} more bytes were dropped)`);
  if (result.status === 'ok') {
    if (parts[0] === '') parts[0] = '(no output)';
  } else if (result.status === 'failed' && result.exitCode !== null) {
    parts.push(`(exit code ${result.exitCode})`);
  } else {
    parts.push(`(the command did not complete: ${result.reason ?? result.status})`);
  }
  if (report !== undefined) parts.push(changesText(await changedFiles(turn.workspace.dir, report), report.limitReached));
  if (missing !== undefined) parts.push(missing);
  if (result.networkNotice !== undefined) parts.push(`(${result.networkNotice})`);
  parts.push(...delivery);
  return { content: parts.filter((part) => part !== '').join('\n'), isError: result.status !== 'ok' };
}

/** Claude's shell: offered only where the world allows it; a call anyway (an old conversation) is refused. */
export const bashTool: Tool<ToolContext, z.infer<typeof bashInput>> = {
  name: SHELL_ID,
  definition,
  input: bashInput,
  invalid: () => ({ content: 'bash needs {"command": "<command line>"} (or {"restart": true}).', isError: true }),
  progress: () => 'Using the shell…',
  offered: ({ turn }) => turn.settings.bash,
  async run(input, { deps, turn }) {
    if (!turn.settings.bash) return { content: 'The shell is turned off in this channel; do the work with the skills\' scripts instead.', isError: true };
    await turn.openWorkspace();
    return runCommand(deps, turn, input);
  },
};
