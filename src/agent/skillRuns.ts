import { worldAllowsNetwork } from '../config/config.ts';
import type { ExecResult } from '../exec/types.ts';
import { type ApprovalItem, authorize, type AuthorizeResult, contentToApprove, notRunSentence, runAuditEntry, SYSTEM_DECIDERS } from '../approvals/index.ts';
import { activeSkills } from '../lifecycle/chatSkills.ts';
import { describeHookFailures, fireHooks, type HookDetails, type HookReport, type HookScope } from '../lifecycle/hooks.ts';
import { missingDependencyHint } from '../skills/dependencies/index.ts';
import type { HookEvent, ScriptOutputView, Skill } from '../skills/types.ts';
import { visible } from '../text/visible.ts';
import { SANDBOX_PATHS, skillMountName } from '../config/sandboxPaths.ts';
import { entryAt, writeInside, WorkspacePathError } from '../workspace/safeFiles.ts';
import { workspaceRoomProblem } from '../workspace/workspaceRoom.ts';
import { describeSize, safeFileName } from './inputFiles.ts';
import { loadedSkillMounts } from './loadedSkills.ts';
import { changedFiles, deliverOutputs } from './runReport.ts';
import type { ToolDeps, TurnContext } from './turnContext.ts';

export interface ScriptCall {
  script: string;
  args: string[];
  /** Text files the model wrote for the script (name → text), written into /workspace before it runs. */
  files?: Record<string, string>;
}

/** The model's files of a call under the names they get in the workspace (its top folder). */
function modelFiles(call: ScriptCall): Array<{ name: string; text: string }> {
  return Object.entries(call.files ?? {}).map(([name, text]) => ({ name: safeFileName(name), text }));
}

/** Why a call's files cannot be written as given: names that become the same workspace file (`q.sql`, `../q.sql`, `sub/q.sql`). */
function collidingNames(call: ScriptCall): string | undefined {
  const byName = new Map<string, string[]>();
  for (const raw of Object.keys(call.files ?? {})) byName.set(safeFileName(raw), [...(byName.get(safeFileName(raw)) ?? []), raw]);
  const clash = [...byName].find(([, raws]) => raws.length > 1);
  if (clash === undefined) return undefined;
  return `the names ${clash[1].map((raw) => `"${visible(raw)}"`).join(', ')} all become ${SANDBOX_PATHS.workspace}/${visible(clash[0])}; give each file a distinct plain name`;
}

/** A call that does not run: the person and the model are told why, and nothing is written. */
function notRun(turn: TurnContext, skill: Skill, call: ScriptCall, problem: string, note: string): ScriptOutputView {
  turn.notice(`${visible(`${skill.id}/${call.script}`)} did not run: ${problem}.`);
  return { ...call, status: 'not_run', exitCode: null, stdout: '', stderr: '', truncated: false, note };
}

/**
 * The files a script will read, as approval items: what the person approves includes what the code sees. What
 * Claude wrote is shown whole (the card attaches it as a file when it is long), never cut.
 */
async function fileItems(turn: TurnContext, calls: readonly ScriptCall[]): Promise<ApprovalItem[]> {
  const items: ApprovalItem[] = turn.files.map((file) => ({ kind: 'file', path: `${SANDBOX_PATHS.workspace}/${file.name}`, args: [describeSize(file.bytes.byteLength), 'sent in this message'] }));
  for (const call of calls) {
    for (const file of modelFiles(call)) {
      const existing = await entryAt(turn.workspace.dir, file.name, file.name).catch(() => undefined);
      const source = `written by Claude for ${call.script}${existing === undefined ? '' : ', replacing the workspace file of that name'}`;
      items.push({ kind: 'file', path: `${SANDBOX_PATHS.workspace}/${file.name}`, args: [describeSize(Buffer.byteLength(file.text)), source, file.text] });
    }
  }
  return items;
}

export const EXECUTE_HOOK_EVENTS: readonly HookEvent[] = ['pre_execute', 'post_execute', 'on_error'];

/** Approval items for hooks: each script once, in event then declaration order. */
export function hookItems(skill: Skill, events: readonly HookEvent[]): ApprovalItem[] {
  const paths = new Set(events.flatMap((event) => (skill.hooks[event] ?? []).map((spec) => spec.script)));
  return [...paths].map((path) => ({ kind: 'hook', path, args: [] }));
}

/** Asks for approval of `items` (one question) unless a grant covers the skill's current content. */
export async function authorizeSkillCode(deps: ToolDeps, turn: TurnContext, skill: Skill, items: ApprovalItem[]): Promise<AuthorizeResult> {
  const code = items.filter((item) => item.kind !== 'file');
  turn.progress(`Waiting for approval to run ${code.map((item) => visible(item.path)).join(', ')}…`);
  // Scripts read the turn's files: the question lists them (once), unless the caller listed them already.
  const listed = items.some((item) => item.kind === 'script') && !items.some((item) => item.kind === 'file') ? [...items, ...(await fileItems(turn, []))] : items;
  const content = await contentToApprove(deps.hashFolder, skill);
  if ('error' in content) return { allowed: false, outcome: 'no', decidedBy: SYSTEM_DECIDERS.invalid, reason: content.error };
  const { hash } = content;
  return authorize(
    { approvals: deps.approvals, grants: deps.grants, audit: deps.audit },
    {
      worldId: turn.worldId,
      chatId: turn.chatId,
      requesterId: turn.requesterId,
      skill: { id: skill.id, hash },
      items: listed,
      timeoutMs: turn.settings.approvalTimeoutMs,
      turnId: turn.turnId,
      resumeKey: turn.nextApprovalKey(),
      ...(turn.routineId === undefined ? {} : { routineId: turn.routineId }),
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
    network: worldAllowsNetwork(turn.settings, skill.id),
    egressAllow: turn.settings.egressAllow,
    credentials: turn.settings.credentials,
    allowed: decision.allowed,
    ...(decision.allowed ? { approvedHash: decision.skillHash } : {}),
    signal: turn.signal,
    workspace: turn.workspace,
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
    ...(await fileItems(turn, calls)),
  ];
  // Nobody is asked to approve what could not run: files that collide or do not fit the workspace are refused first.
  const clashes = calls.map(collidingNames);
  if (clashes.some((clash) => clash !== undefined)) {
    return calls.map((call, index) => {
      const clash = clashes[index] ?? 'another script of this call has files whose names collide';
      return notRun(turn, skill, call, clash, `Not run: the files written for it collide: ${clash}.`);
    });
  }
  const noRoom = await workspaceRoomProblem(turn.workspace, calls.flatMap((call) => plannedWrites(modelFiles(call))));
  if (noRoom !== undefined) return calls.map((call) => notRunForRoom(turn, skill, call, noRoom));
  const decision = await authorizeSkillCode(deps, turn, skill, items);
  return runApprovedScripts(deps, turn, skill, calls, decision, registered);
}

const plannedWrites = (files: Array<{ name: string; text: string }>) => files.map((file) => ({ rel: file.name, bytes: Buffer.byteLength(file.text, 'utf8') }));

/** A call whose files do not fit: the person and the model are told which bound, and nothing runs. */
function notRunForRoom(turn: TurnContext, skill: Skill, call: ScriptCall, problem: string): ScriptOutputView {
  return notRun(turn, skill, call, problem, `Not run: the files written for it do not fit: ${problem}.`);
}

/** Writes the model's files into the workspace; the reason the first one could not be written, if any. */
async function writeModelFiles(turn: TurnContext, files: Array<{ name: string; text: string }>): Promise<string | undefined> {
  for (const file of files) {
    const shown = `${SANDBOX_PATHS.workspace}/${visible(file.name)}`;
    try {
      await writeInside(turn.workspace.dir, file.name, shown, Buffer.from(file.text, 'utf8'), turn.workspace.owner);
    } catch (error) {
      return error instanceof WorkspacePathError ? `${error.message.startsWith(shown) ? '' : `${shown}: `}${error.message}` : `${shown} could not be written (${(error as NodeJS.ErrnoException).code ?? 'error'})`;
    }
  }
  return undefined;
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
    const note = decision.reason ?? notRunSentence(decision.outcome, decision.decidedBy);
    return calls.map((call) => ({ ...call, status: 'declined', exitCode: null, stdout: '', stderr: '', truncated: false, note }));
  }
  const scope = hookScope(turn, skill, decision);
  const fire = async (event: HookEvent, details: HookDetails): Promise<HookReport[]> => (withHooks ? fireHooks(deps, scope, event, details) : []);
  const outputs: ScriptOutputView[] = [];
  for (const call of calls) {
    // Checked again for each call: an earlier one may have filled the workspace.
    const files = modelFiles(call);
    const noRoom = await workspaceRoomProblem(turn.workspace, plannedWrites(files));
    if (noRoom !== undefined) {
      outputs.push(notRunForRoom(turn, skill, call, noRoom));
      continue;
    }
    // Exactly the text the person approved, written just before the run; a file that cannot be written (a link
    // or a folder a script left under its name) means the script does not run.
    const unwritten = await writeModelFiles(turn, files);
    if (unwritten !== undefined) {
      outputs.push(notRun(turn, skill, call, unwritten, `Not run: ${unwritten}.`));
      continue;
    }
    const script = { path: call.script, args: call.args };
    const hookFailures = await fire('pre_execute', { script });
    turn.progress(`Running ${visible(`${skill.id}/${call.script}`)}…`);
    const result = await deps.executor.run({
      skillDir: skill.dir,
      skillId: skillMountName(skill.id),
      script: call.script,
      args: call.args,
      skills: await loadedSkillMounts(deps, turn),
      workspace: turn.workspace,
      env: turn.settings.env[skill.id] ?? {},
      timeoutMs: deps.scriptTimeoutMs,
      signal: turn.signal,
      network: scope.network ?? false,
      egressAllow: turn.settings.egressAllow,
      credentials: turn.settings.credentials,
      chatId: turn.chatId,
      expectedHash: decision.skillHash,
    });
    if (result.networkNotice !== undefined) turn.notice(`${visible(`${skill.id}/${call.script}`)}: ${result.networkNotice}`);
    const report = result.workspace;
    const changed = report === undefined ? undefined : await changedFiles(turn.workspace.dir, report);
    // What the script made reaches the chat (not after a stop: the person asked for nothing more).
    const delivery = report === undefined || result.status === 'stopped' ? [] : await deliverOutputs(turn.workspace.dir, report, `the ${skill.id} skill`, turn.fileLimits, turn.upload);
    for (const line of delivery) if (line.startsWith('Not delivered')) turn.notice(line);
    if (report?.limitReached !== undefined) turn.notice(`${visible(`${skill.id}/${call.script}`)}: ${report.limitReached}.`);
    const missing = result.status === 'failed' ? missingDependencyHint(`${result.stderr}\n${result.stdout}`, result.exitCode, [skill]) : undefined;
    if (missing !== undefined) turn.notice(`${visible(`${skill.id}/${call.script}`)} failed: ${missing}`);
    await deps.audit.record(runAuditEntry(scope, { kind: 'script', path: call.script, args: call.args }, result));
    if (result.status === 'refused' && result.reason !== undefined) turn.progress(`${visible(`${skill.id}/${call.script}`)} did not run: ${result.reason}`);
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
    const view = toView(call, result, [...(result.networkNotice === undefined ? [] : [`${result.networkNotice.charAt(0).toUpperCase()}${result.networkNotice.slice(1)}`]), ...(missing === undefined ? [] : [missing]), ...delivery, ...describeHookFailures(hookFailures)]);
    outputs.push(changed === undefined ? view : { ...view, workspace: { ...changed, ...(report?.limitReached === undefined ? {} : { limitReached: report.limitReached }) } });
  }
  return outputs;
}

function toView(call: ScriptCall, result: ExecResult, hookNotes: string[]): ScriptOutputView {
  const notes: string[] = [];
  // Notes are sentences; an exec reason is a clause ("the script exited with code 1").
  if (result.reason) notes.push(/[.!?]$/.test(result.reason) ? result.reason : `${result.reason}.`);
  if (result.status === 'timeout') notes.push('The script was stopped at its time limit; its output may be incomplete.');
  if (result.status === 'stopped') notes.push('The person stopped the turn, so the script was ended; do not run it again unless asked.');
  if (result.stdoutTruncated) notes.push(`stdout was cut: ${result.stdoutDroppedBytes} more bytes were dropped.`);
  if (result.stderrTruncated) notes.push(`stderr was cut: ${result.stderrDroppedBytes} more bytes were dropped.`);
  notes.push(...hookNotes);
  return {
    script: call.script,
    args: call.args,
    // A run a person stopped ended without finishing; its reason says so.
    status: result.status === 'stopped' ? 'failed' : result.status,
    exitCode: result.exitCode,
    stdout: result.stdout,
    stderr: result.stderr,
    truncated: result.stdoutTruncated || result.stderrTruncated,
    note: notes.length > 0 ? notes.join(' ') : undefined,
  };
}
