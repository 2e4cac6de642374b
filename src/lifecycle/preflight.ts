// Preflight: the steps a skill declares to gather data before it reaches the model, run in declaration order.
// A `tool` step calls a built-in deterministic tool; a `command` step runs a script of the skill folder through
// the guarded executor (argv, no shell, its own timeout, capped output), only once its code is approved.
import { skillMountName } from '../config/sandboxPaths.ts';
import type { Credential } from '../config/credentialsSchema.ts';
import type { ExecResult, Executor } from '../exec/types.ts';
import type { WorkspaceMount } from '../workspace/workspaceRoom.ts';
import type { PreflightStep, Skill } from '../skills/types.ts';
import { runPreflightTool, type PreflightToolContext } from './preflightTools.ts';

export const PREFLIGHT_DEFAULT_TIMEOUT_MS = 10_000;
export const PREFLIGHT_MAX_TIMEOUT_MS = 120_000;
/** Bytes of a command's stdout kept (the rest is dropped with a notice), and characters of a tool's text. */
export const PREFLIGHT_MAX_OUTPUT = 16 * 1024;

export interface PreflightInput {
  skill: Skill;
  executor: Executor;
  /**
   * The approval of the skill's code: command steps run only when allowed, and only while the skill's files
   * still hash to `skillHash`, the content that was approved.
   */
  approval: { allowed: true; skillHash: string } | { allowed: false; reason: string };
  /** Variables the world's config gives this skill. */
  env: Record<string, string>;
  /** Whether the world lets this skill's processes reach the network (default none). */
  network?: boolean;
  /** The world's `egressAllow`: private ranges or host names its networked processes may reach. */
  egressAllow?: string[];
  /** The world's `credentials`: placeholders inside, values set by the egress proxy. */
  credentials?: Credential[];
  /** The chat the steps run for (bounds its concurrent processes). */
  chatId?: string;
  tools: PreflightToolContext;
  /** Told about every command step that ran (for the audit log). */
  onCommand?: (step: PreflightStep, result: ExecResult) => Promise<void>;
  /** The turn's stop: a command still running when the person stops the turn is ended with it. */
  signal?: AbortSignal;
  /** The chat's workspace: command steps run there like every process of the chat. */
  workspace?: WorkspaceMount;
}

export interface StepFailure {
  step: PreflightStep;
  /** How the step is named to people: its name, else its tool or command. */
  label: string;
  reason: string;
}

export interface ContextItem {
  label: string;
  text: string;
}

export type PreflightOutcome =
  | {
      ok: true;
      /** `inject: context` outputs in step order, plus a marker for each optional step that failed. */
      context: ContextItem[];
      /** `inject: variable` outputs by step name (empty for a failed optional step). */
      variables: Map<string, string>;
      failures: StepFailure[];
    }
  /** A required step failed: the activation stops here. */
  | { ok: false; failure: StepFailure; failures: StepFailure[] };

export function stepLabel(step: PreflightStep): string {
  return step.name ?? step.tool ?? step.command ?? 'step';
}

/** Seconds as declared, default 10 s, never above 120 s. */
export function stepTimeoutMs(step: PreflightStep): number {
  const declared = step.timeout === undefined ? PREFLIGHT_DEFAULT_TIMEOUT_MS : Math.round(step.timeout * 1000);
  return Math.min(Math.max(declared, 1), PREFLIGHT_MAX_TIMEOUT_MS);
}

type StepResult = { ok: true; text: string } | { ok: false; reason: string };

/** The last non-blank line of stderr, shortened: enough to say why without flooding the reply. */
function stderrHint(stderr: string): string {
  const line = stderr.split('\n').map((text) => text.trim()).filter(Boolean).at(-1);
  if (line === undefined) return '';
  return `: ${line.length > 200 ? `${line.slice(0, 200)}…` : line}`;
}

async function runCommand(step: PreflightStep & { command: string }, input: PreflightInput): Promise<StepResult> {
  if (!input.approval.allowed) return { ok: false, reason: input.approval.reason };
  const result = await input.executor.run({
    skillDir: input.skill.dir,
    skillId: skillMountName(input.skill.id),
    script: step.command,
    args: step.args,
    ...(input.workspace === undefined ? {} : { workspace: input.workspace }),
    env: input.env,
    network: input.network ?? false,
    egressAllow: input.egressAllow ?? [],
    credentials: input.credentials ?? [],
    ...(input.chatId === undefined ? {} : { chatId: input.chatId }),
    timeoutMs: stepTimeoutMs(step),
    maxOutputBytes: PREFLIGHT_MAX_OUTPUT,
    expectedHash: input.approval.skillHash,
    ...(input.signal ? { signal: input.signal } : {}),
  });
  await input.onCommand?.(step, result);
  if (result.status !== 'ok') {
    return { ok: false, reason: `${result.reason ?? `the script ended with status ${result.status}`}${stderrHint(result.stderr)}` };
  }
  return { ok: true, text: result.stdout };
}

function runTool(step: PreflightStep & { tool: string }, input: PreflightInput): StepResult {
  const result = runPreflightTool(step.tool, step.args, input.tools);
  if (!result.ok) return result;
  const text = result.text.length > PREFLIGHT_MAX_OUTPUT ? `${result.text.slice(0, PREFLIGHT_MAX_OUTPUT)}\n[output truncated]` : result.text;
  return { ok: true, text };
}

/** Runs every step in order. Never throws: a step's failure is part of the outcome. */
export async function runPreflight(input: PreflightInput): Promise<PreflightOutcome> {
  const context: ContextItem[] = [];
  const variables = new Map<string, string>();
  const failures: StepFailure[] = [];
  for (const step of input.skill.preflight) {
    const label = stepLabel(step);
    let result: StepResult;
    if (step.command !== undefined) result = await runCommand({ ...step, command: step.command }, input);
    else if (step.tool !== undefined) result = runTool({ ...step, tool: step.tool }, input);
    else result = { ok: false, reason: 'the step names neither a tool nor a command' };

    if (!result.ok) {
      const failure = { step, label, reason: result.reason };
      failures.push(failure);
      if (!step.optional) return { ok: false, failure, failures };
      // An optional step's value is empty, and the model is told why rather than left to guess.
      if (step.inject === 'variable' && step.name !== undefined) variables.set(step.name, '');
      context.push({ label: `${label} (failed)`, text: `This optional preflight step failed: ${result.reason}. Its value is empty.` });
      continue;
    }
    const text = result.text.replace(/\n+$/, '');
    if (step.inject === 'context') context.push({ label, text });
    else if (step.inject === 'variable' && step.name !== undefined) variables.set(step.name, text);
  }
  return { ok: true, context, variables, failures };
}
