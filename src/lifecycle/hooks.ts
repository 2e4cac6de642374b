// Skill hooks: scripts a skill declares for moments of its own life in a chat (pre_context and post_context
// around joining the chat's context; pre_execute, post_execute and on_error around its scripts). Each runs
// through the guarded executor in its own process, in its own skill's folder with that skill's environment,
// and reads a JSON description of the event on stdin. Hooks observe: a failing hook is logged, audited and
// reported, and never stops the other hooks, the script or the turn.
import { skillMountName } from '../config/sandboxPaths.ts';
import type { Credential } from '../config/credentialsSchema.ts';
import type { ExecStatus, Executor } from '../exec/types.ts';
import type { WorkspaceMount } from '../workspace/workspaceRoom.ts';
import { type AuditLog, runAuditEntry } from '../approvals/index.ts';
import type { Logger } from '../ops/log.ts';
import type { HookEvent, HookSpec, Skill } from '../skills/types.ts';

export const HOOK_DEFAULT_TIMEOUT_MS = 10_000;
export const HOOK_MAX_TIMEOUT_MS = 120_000;
const HOOK_MAX_OUTPUT_BYTES = 8 * 1024;

export interface HookDeps {
  executor: Executor;
  audit: AuditLog;
  logger: Logger;
}

/** The chat, turn and skill a hook fires for, and whether the approval of the skill's code lets it run. */
export interface HookScope {
  worldId: string;
  chatId: string;
  turnId: string;
  requesterId: string;
  skill: Skill;
  /** Variables the world's config gives this skill. */
  env: Record<string, string>;
  /** Whether the world lets this skill's processes reach the network (default none). */
  network?: boolean;
  /** The world's `egressAllow`: private ranges or host names its networked processes may reach. */
  egressAllow?: string[];
  /** The world's `credentials`: placeholders inside, values set by the egress proxy. */
  credentials?: Credential[];
  allowed: boolean;
  /** The content hash the approval or grant covered: a hook runs only while the skill's files hash to it. */
  approvedHash?: string;
  approvalId?: string;
  decidedBy?: string;
  /** The turn's stop: a hook still running when the person stops the turn is ended with it. */
  signal?: AbortSignal;
  /** The chat's workspace: hooks run there like every process of the chat. */
  workspace?: WorkspaceMount;
}

/** What the event is about, beside the skill, world, chat and turn. */
export interface HookDetails {
  script?: { path: string; args: string[] };
  result?: { status: string; exitCode?: number | null; durationMs?: number; stdout?: string; stderr?: string; reason?: string };
  activation?: { via: string; matched?: string[] };
  error?: { source: 'script' | 'preflight' | 'hook'; message: string; event?: HookEvent; script?: string };
}

export interface HookReport {
  event: HookEvent;
  skillId: string;
  script: string;
  status: ExecStatus;
  reason?: string;
}

/** Seconds as declared, default 10 s, never above 120 s. */
export function hookTimeoutMs(spec: HookSpec): number {
  const declared = spec.timeout === undefined ? HOOK_DEFAULT_TIMEOUT_MS : Math.round(spec.timeout * 1000);
  return Math.min(Math.max(declared, 1), HOOK_MAX_TIMEOUT_MS);
}

/** The JSON a hook reads on stdin. */
export function hookEventJson(event: HookEvent, scope: HookScope, details: HookDetails): string {
  return JSON.stringify({
    event,
    skill: { id: scope.skill.id, hash: scope.skill.hash },
    world: { id: scope.worldId },
    chat: { id: scope.chatId },
    turn: { id: scope.turnId },
    ...details,
  });
}

async function runOne(deps: HookDeps, scope: HookScope, event: HookEvent, spec: HookSpec, stdin: string): Promise<HookReport> {
  const result = await deps.executor.run({
    skillDir: scope.skill.dir,
    skillId: skillMountName(scope.skill.id),
    script: spec.script,
    args: [],
    ...(scope.workspace === undefined ? {} : { workspace: scope.workspace }),
    env: scope.env,
    network: scope.network ?? false,
    egressAllow: scope.egressAllow ?? [],
    credentials: scope.credentials ?? [],
    chatId: scope.chatId,
    stdin,
    timeoutMs: hookTimeoutMs(spec),
    maxOutputBytes: HOOK_MAX_OUTPUT_BYTES,
    ...(scope.approvedHash === undefined ? {} : { expectedHash: scope.approvedHash }),
    ...(scope.signal ? { signal: scope.signal } : {}),
  });
  const fields = { chatId: scope.chatId, turnId: scope.turnId, skill: scope.skill.id, event, hook: spec.script, ms: result.durationMs };
  if (result.status === 'ok') deps.logger.debug(fields, 'skill hook ran');
  else deps.logger.warn({ ...fields, status: result.status, reason: result.reason, stderr: result.stderr.slice(-500) }, 'skill hook failed');
  try {
    await deps.audit.record(runAuditEntry(scope, { kind: 'hook', path: spec.script, args: [event] }, result));
  } catch (error) {
    // The audit trail is for operators; losing one entry must not turn a hook into a failed turn.
    deps.logger.warn({ ...fields, err: error }, 'could not audit a hook run');
  }
  return { event, skillId: scope.skill.id, script: spec.script, status: result.status, ...(result.reason ? { reason: result.reason } : {}) };
}

/**
 * Runs the skill's hooks for `event`, in declaration order, one after the other. Returns the failures to
 * report. A failure fires the skill's on_error hooks; failures of on_error hooks are only logged.
 */
export async function fireHooks(deps: HookDeps, scope: HookScope, event: HookEvent, details: HookDetails = {}): Promise<HookReport[]> {
  const specs = scope.skill.hooks[event] ?? [];
  if (specs.length === 0) return [];
  if (!scope.allowed) {
    deps.logger.info({ chatId: scope.chatId, turnId: scope.turnId, skill: scope.skill.id, event }, 'skill hooks not run: their code was not approved');
    return [];
  }
  const stdin = hookEventJson(event, scope, details);
  const failures: HookReport[] = [];
  for (const spec of specs) {
    const report = await runOne(deps, scope, event, spec, stdin);
    if (report.status === 'ok' || event === 'on_error') continue;
    failures.push(report);
    await fireHooks(deps, scope, 'on_error', {
      ...details,
      error: { source: 'hook', event, script: spec.script, message: report.reason ?? `the hook ended with status ${report.status}` },
    });
  }
  return failures;
}

/** One sentence per failed hook, for the notes the model reads. */
export function describeHookFailures(failures: readonly HookReport[]): string[] {
  return failures.map((failure) => `The ${failure.event} hook ${failure.script} of skill ${failure.skillId} failed (${failure.reason ?? failure.status}); the rest went on.`);
}
