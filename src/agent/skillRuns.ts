import type { ExecResult } from '../exec/types.ts';
import { runAuditEntry } from '../hitl/audit.ts';
import { authorize, type AuthorizeResult, notRunSentence } from '../hitl/gate.ts';
import type { ApprovalItem } from '../hitl/types.ts';
import { activeSkills } from '../lifecycle/chatSkills.ts';
import { describeHookFailures, fireHooks, type HookDetails, type HookReport, type HookScope } from '../lifecycle/hooks.ts';
import type { HookEvent, ScriptOutputView, Skill } from '../skills/types.ts';
import type { ToolDeps, TurnContext } from './turnContext.ts';

export interface ScriptCall {
  script: string;
  args: string[];
}

export const EXECUTE_HOOK_EVENTS: readonly HookEvent[] = ['pre_execute', 'post_execute', 'on_error'];

/** Approval items for hooks: each script once, in event then declaration order. */
export function hookItems(skill: Skill, events: readonly HookEvent[]): ApprovalItem[] {
  const paths = new Set(events.flatMap((event) => (skill.hooks[event] ?? []).map((spec) => spec.script)));
  return [...paths].map((path) => ({ kind: 'hook', path, args: [] }));
}

/** Asks for approval of `items` (one question) unless a grant covers the skill's current content. */
export function authorizeSkillCode(deps: ToolDeps, turn: TurnContext, skill: Skill, items: ApprovalItem[]): Promise<AuthorizeResult> {
  turn.progress(`Waiting for approval to run ${items.map((item) => item.path).join(', ')}…`);
  return authorize(
    { approvals: deps.approvals, grants: deps.grants, audit: deps.audit },
    {
      worldId: turn.worldId,
      chatId: turn.chatId,
      requesterId: turn.requesterId,
      skill: { id: skill.id, hash: skill.hash },
      items,
      timeoutMs: turn.settings.approvalTimeoutMs,
      turnId: turn.turnId,
      resumeKey: turn.nextApprovalKey(),
    },
  );
}

/** The scope a skill's hooks run in for this turn, under the approval `decision`. */
export function hookScope(turn: TurnContext, skill: Skill, decision: AuthorizeResult): HookScope {
  return {
    worldId: turn.worldId,
    chatId: turn.chatId,
    turnId: turn.turnId,
    requesterId: turn.requesterId,
    skill,
    env: turn.settings.env[skill.id] ?? {},
    allowed: decision.allowed,
    ...(decision.approvalId === undefined ? {} : { approvalId: decision.approvalId }),
    ...(decision.decidedBy === undefined ? {} : { decidedBy: decision.decidedBy }),
  };
}

/**
 * Runs a skill's bundled code for a turn: asks for approval unless a grant covers it, then runs each call in
 * order through the guarded executor. When the skill is active in the chat, its pre_execute, post_execute and
 * on_error hooks are listed in the same question and fire around each call. Declined or unanswered, every call
 * comes back `declined` with the plain sentence the model must hear. Never throws for a script's failure.
 */
export async function runSkillCode(deps: ToolDeps, turn: TurnContext, skill: Skill, calls: ScriptCall[]): Promise<ScriptOutputView[]> {
  const hasHooks = EXECUTE_HOOK_EVENTS.some((event) => (skill.hooks[event]?.length ?? 0) > 0);
  const registered =
    hasHooks && (await activeSkills(deps.store, turn.chatId)).some((entry) => entry.id === skill.id);
  const items: ApprovalItem[] = [
    ...calls.map((call): ApprovalItem => ({ kind: 'script', path: call.script, args: call.args })),
    ...(registered ? hookItems(skill, EXECUTE_HOOK_EVENTS) : []),
  ];
  const decision = await authorizeSkillCode(deps, turn, skill, items);
  return runApprovedScripts(deps, turn, skill, calls, decision, registered);
}

/**
 * Runs calls already decided on (the activation asks one question for scripts, preflight and hooks).
 * With `withHooks`, the skill's execute hooks fire around each call.
 */
export async function runApprovedScripts(
  deps: ToolDeps,
  turn: TurnContext,
  skill: Skill,
  calls: ScriptCall[],
  decision: AuthorizeResult,
  withHooks: boolean,
): Promise<ScriptOutputView[]> {
  if (!decision.allowed) {
    const note = notRunSentence(decision.outcome, decision.decidedBy);
    return calls.map((call) => ({ ...call, status: 'declined', exitCode: null, stdout: '', stderr: '', truncated: false, note }));
  }
  const scope = hookScope(turn, skill, decision);
  const fire = async (event: HookEvent, details: HookDetails): Promise<HookReport[]> => (withHooks ? fireHooks(deps, scope, event, details) : []);
  const outputs: ScriptOutputView[] = [];
  for (const call of calls) {
    const script = { path: call.script, args: call.args };
    const hookFailures = await fire('pre_execute', { script });
    turn.progress(`Running ${skill.id}/${call.script}…`);
    const result = await deps.executor.run({
      skillDir: skill.dir,
      script: call.script,
      args: call.args,
      env: turn.settings.env[skill.id] ?? {},
      timeoutMs: deps.scriptTimeoutMs,
    });
    await deps.audit.record(runAuditEntry(scope, { kind: 'script', path: call.script, args: call.args }, result));
    deps.logger.info(
      { chatId: turn.chatId, turnId: turn.turnId, skill: skill.id, script: call.script, status: result.status, ms: result.durationMs },
      'skill script ran',
    );
    const outcome = {
      status: result.status,
      exitCode: result.exitCode,
      durationMs: result.durationMs,
      stdout: result.stdout,
      stderr: result.stderr,
      ...(result.reason === undefined ? {} : { reason: result.reason }),
    };
    hookFailures.push(...(await fire('post_execute', { script, result: outcome })));
    if (result.status !== 'ok') {
      await fire('on_error', { script, result: outcome, error: { source: 'script', message: result.reason ?? `the script ended with status ${result.status}` } });
    }
    outputs.push(toView(call, result, describeHookFailures(hookFailures)));
  }
  return outputs;
}

function toView(call: ScriptCall, result: ExecResult, hookNotes: string[]): ScriptOutputView {
  const notes: string[] = [];
  if (result.reason) notes.push(result.reason);
  if (result.status === 'timeout') notes.push('The script was stopped at its time limit; its output may be incomplete.');
  if (result.stdoutTruncated) notes.push(`stdout was cut: ${result.stdoutDroppedBytes} more bytes were dropped.`);
  if (result.stderrTruncated) notes.push(`stderr was cut: ${result.stderrDroppedBytes} more bytes were dropped.`);
  notes.push(...hookNotes);
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
