import type { ExecResult } from '../exec/types.ts';
import { authorize, notRunSentence } from '../hitl/gate.ts';
import type { ApprovalItem } from '../hitl/types.ts';
import type { ScriptOutputView, Skill } from '../skills/types.ts';
import type { ToolDeps, TurnContext } from './turnContext.ts';

export interface ScriptCall {
  script: string;
  args: string[];
}

/**
 * Runs a skill's bundled code for a turn: asks for approval unless a grant covers it, then runs each call in
 * order through the guarded executor. Declined or unanswered, every call comes back `declined` with the plain
 * sentence the model must hear. Never throws for a script's failure.
 */
export async function runSkillCode(
  deps: ToolDeps,
  turn: TurnContext,
  skill: Skill,
  calls: ScriptCall[],
): Promise<ScriptOutputView[]> {
  const items: ApprovalItem[] = calls.map((call) => ({ kind: 'script', path: call.script, args: call.args }));
  turn.progress(`Waiting for approval to run ${calls.map((call) => call.script).join(', ')}…`);
  const decision = await authorize(
    { approvals: deps.approvals, grants: deps.grants, audit: deps.audit },
    {
      worldId: turn.worldId,
      chatId: turn.chatId,
      requesterId: turn.requesterId,
      skill: { id: skill.id, hash: skill.hash },
      items,
      timeoutMs: turn.settings.approvalTimeoutMs,
      turnId: turn.turnId,
    },
  );
  if (!decision.allowed) {
    const note = notRunSentence(decision.outcome, decision.decidedBy);
    return calls.map((call) => ({ ...call, status: 'declined', exitCode: null, stdout: '', stderr: '', truncated: false, note }));
  }
  const outputs: ScriptOutputView[] = [];
  for (const call of calls) {
    turn.progress(`Running ${skill.id}/${call.script}…`);
    const result = await deps.executor.run({
      skillDir: skill.dir,
      script: call.script,
      args: call.args,
      env: turn.settings.env[skill.id] ?? {},
      timeoutMs: deps.scriptTimeoutMs,
    });
    await deps.audit.record({
      at: Date.now(),
      kind: 'run',
      worldId: turn.worldId,
      chatId: turn.chatId,
      skillId: skill.id,
      skillHash: skill.hash,
      items: [{ kind: 'script', path: call.script, args: call.args }],
      requestedBy: turn.requesterId,
      decidedBy: decision.decidedBy,
      outcome: result.status,
      approvalId: decision.approvalId,
      exitCode: result.exitCode ?? undefined,
      durationMs: result.durationMs,
    });
    deps.logger.info(
      { chatId: turn.chatId, turnId: turn.turnId, skill: skill.id, script: call.script, status: result.status, ms: result.durationMs },
      'skill script ran',
    );
    outputs.push(toView(call, result));
  }
  return outputs;
}

function toView(call: ScriptCall, result: ExecResult): ScriptOutputView {
  const notes: string[] = [];
  if (result.reason) notes.push(result.reason);
  if (result.status === 'timeout') notes.push('The script was stopped at its time limit; its output may be incomplete.');
  if (result.stdoutTruncated) notes.push(`stdout was cut: ${result.stdoutDroppedBytes} more bytes were dropped.`);
  if (result.stderrTruncated) notes.push(`stderr was cut: ${result.stderrDroppedBytes} more bytes were dropped.`);
  return {
    script: call.script,
    args: call.args,
    status: result.status,
    exitCode: result.exitCode,
    stdout: result.stdout,
    stderr: result.stderr,
    truncated: result.stdoutTruncated || result.stderrTruncated,
    note: notes.length > 0 ? notes.join(' ') : undefined,
  };
}
