// Activating one skill in a chat: what load_skill does (the same envelope, the same approval for bundled
// code), plus the lifecycle around it. In order: one approval question for the skill's run-on-load scripts,
// preflight commands and hooks; pre_context hooks; preflight steps; the run-on-load scripts; the envelope with the
// preflight context and variables; the chat's record of active skills; post_context hooks. Loading runs no other
// script: the ones its instructions name take arguments, and run when the model calls them (run_skill_script).
import { worldAllowsSkill } from '../config/config.ts';
import {
  authorizeSkillCode,
  hookItems,
  hookScope,
  runApprovedScripts,
  type ScriptCall,
} from './skillRuns.ts';
import type { ToolDeps, TurnContext } from './turnContext.ts';
import { type ApprovalItem, type AuthorizeResult, runAuditEntry, SYSTEM_DECIDER_PREFIX, SYSTEM_DECIDERS } from '../approvals/index.ts';
import { mcpDirectiveLines } from '../mcp/skillNeeds.ts';
import { renderSkillContext, renderSkillFailure } from '../skills/envelope.ts';
import { HOOK_EVENTS, type PreflightStep, type Skill } from '../skills/types.ts';
import { type ActivationVia, recordActivation } from '../lifecycle/chatSkills.ts';
import { describeHookFailures, fireHooks, type HookDetails } from '../lifecycle/hooks.ts';
import { runPreflight } from '../lifecycle/preflight.ts';
import { substituteArguments, substitutePreflightVariables } from '../lifecycle/substitution.ts';

export interface SkillActivation {
  skillId: string;
  via: ActivationVia;
  /** The load_skill result the model reads. */
  result: { content: string; isError: boolean };
  /** Why a required preflight step stopped the activation; the skill was not activated then. */
  aborted?: string;
  /** Failures the model should know of (hooks that failed); the activation went on. */
  notes: string[];
}

export interface ActivationRequest {
  skill: Skill;
  via: ActivationVia;
  /** Trigger phrases the message matched. */
  matched?: string[];
  /** The words given to `/skill ID …`: substituted into the body as Claude Code does ($ARGUMENTS, $N). */
  args?: string;
}

/** Every piece of the skill's code that loading runs, for the one question: run-on-load scripts, preflight commands, hooks. */
export function activationItems(skill: Skill): ApprovalItem[] {
  const commands = skill.preflight.filter((step): step is PreflightStep & { command: string } => step.command !== undefined);
  return [
    ...skill.runOnLoad.map((path): ApprovalItem => ({ kind: 'script', path, args: [] })),
    ...commands.map((step): ApprovalItem => ({ kind: 'preflight', path: step.command, args: step.args })),
    ...hookItems(skill, HOOK_EVENTS),
  ];
}

function notApproved(decision: AuthorizeResult): string {
  if (!decision.allowed && decision.reason !== undefined) return `its code was not approved: ${decision.reason}`;
  if (decision.decidedBy === SYSTEM_DECIDERS.integrity) {
    return 'its code was not approved: the approval record in the store failed its integrity check and was ignored; ask again';
  }
  if (decision.outcome === 'timeout') return 'its code was not approved: nobody answered in time';
  if (decision.outcome === 'expired') return 'its code was not approved: the approval expired';
  if (decision.decidedBy === undefined || decision.decidedBy.startsWith(SYSTEM_DECIDER_PREFIX)) {
    return 'its code was not approved: nobody could be asked here, so the default answer (no) applied';
  }
  return `its code was not approved: ${decision.decidedBy} declined`;
}

/** Never throws for a step's, script's or hook's failure: they are part of the result. */
export async function activateSkill(deps: ToolDeps, turn: TurnContext, request: ActivationRequest): Promise<SkillActivation> {
  const { skill, via } = request;
  const items = activationItems(skill);
  // Code that loading runs (run-on-load, preflight commands, hooks) runs in the chat's workspace.
  if (items.length > 0) await turn.openWorkspace();
  // A skill without bundled code has nothing to approve: no question is asked.
  const decision: AuthorizeResult =
    items.length > 0 ? await authorizeSkillCode(deps, turn, skill, items) : { allowed: true, outcome: 'granted', skillHash: skill.hash };
  const scope = hookScope(turn, skill, decision);
  const activation: HookDetails['activation'] = { via, ...(request.matched ? { matched: request.matched } : {}) };
  const notes: string[] = [];
  notes.push(...describeHookFailures(await fireHooks(deps, scope, 'pre_context', { activation })));

  turn.progress(`Preparing skill ${skill.id}…`);
  const preflight = await runPreflight({
    skill,
    executor: deps.executor,
    signal: turn.signal,
    workspace: turn.workspace,
    approval: decision.allowed ? { allowed: true, skillHash: decision.skillHash } : { allowed: false, reason: notApproved(decision) },
    env: scope.env,
    network: scope.network ?? false,
    egressAllow: scope.egressAllow ?? [],
    credentials: scope.credentials ?? [],
    chatId: turn.chatId,
    tools: {
      worldId: turn.worldId,
      chatId: turn.chatId,
      history: turn.history,
      skills: turn.snapshot.list().filter((candidate) => worldAllowsSkill(turn.settings, candidate.id)),
      now: new Date(),
    },
    onCommand: (step, result) => deps.audit.record(runAuditEntry(scope, { kind: 'preflight', path: step.command ?? '', args: step.args }, result)),
  });
  for (const failure of preflight.failures) {
    deps.logger.warn({ chatId: turn.chatId, turnId: turn.turnId, skill: skill.id, step: failure.label, reason: failure.reason }, 'preflight step failed');
    await fireHooks(deps, scope, 'on_error', { activation, error: { source: 'preflight', message: `${failure.label}: ${failure.reason}` } });
  }
  if (!preflight.ok) {
    const reason = `The skill "${skill.id}" was not activated: its preflight step "${preflight.failure.label}" failed: ${preflight.failure.reason}.`;
    return {
      skillId: skill.id,
      via,
      result: { content: renderSkillFailure(skill.id, 'error', 'preflight_failed', reason, { step: preflight.failure.label }), isError: true },
      aborted: reason,
      notes,
    };
  }

  const calls: ScriptCall[] = skill.runOnLoad.map((script) => ({ script, args: [] }));
  const scriptOutputs = calls.length > 0 ? await runApprovedScripts(deps, turn, skill, calls, decision, true) : [];
  // Arguments first: a preflight value is inserted as it is and never scanned for placeholders again.
  let body = request.args === undefined ? skill.body : substituteArguments(skill.body, request.args);
  if (preflight.variables.size > 0) body = substitutePreflightVariables(body, preflight.variables);
  const directiveNotes = mcpDirectiveLines(skill.body, turn.mcpServers ?? []);
  const content = renderSkillContext(skill, {
    scriptOutputs,
    preflightContext: preflight.context,
    ...(directiveNotes.length > 0 ? { directiveNotes } : {}),
    ...(body === skill.body ? {} : { bodyOverride: body }),
  });
  await recordActivation(deps.store, turn.chatId, { id: skill.id, hash: skill.hash, via });
  notes.push(...describeHookFailures(await fireHooks(deps, scope, 'post_context', { activation, result: { status: 'loaded' } })));
  deps.logger.info({ chatId: turn.chatId, turnId: turn.turnId, skill: skill.id, via, matched: request.matched }, 'skill activated');
  deps.metrics?.skillActivations.inc({ skill: skill.id });
  return { skillId: skill.id, via, result: { content, isError: false }, notes };
}
