// An operator's install policy: a command (install.policyCommand) that reads the staged folder and answers
// `allow` or `deny[: reason]` on its first line of output. It runs through the one guarded path (src/exec: the
// sandbox, no network, bounded), with the staged folder read-only at /skills/staged. Fail closed: anything but
// exit 0 and a first line of exactly `allow` (an error, a timeout, no sandbox, silence) is a deny.
import { chown, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Executor, HashFolder } from '../exec/types.ts';

export type PolicyAnswer = { allow: true } | { allow: false; reason: string };

const STAGED_ID = 'staged';
const POLICY_TIMEOUT_MS = 60_000;
const POLICY_CHAT = 'install-policy';

export async function askPolicy(command: string, stagedDir: string, deps: { executor: Executor; hashFolder: HashFolder }): Promise<PolicyAnswer> {
  const hashed = await deps.hashFolder(stagedDir);
  if ('error' in hashed) return { allow: false, reason: `the staged folder cannot be handed to the policy command (${hashed.error})` };
  const workspace = await mkdtemp(join(tmpdir(), 'skillbot-policy-'));
  try {
    // The sandbox runs as its own user where the bot is root: the working folder must be theirs.
    const owner = deps.executor.workspaceOwner(POLICY_CHAT);
    if (owner !== undefined) await chown(workspace, owner.uid, owner.gid);
    const result = await deps.executor.run({
      shell: `${command} /skills/${STAGED_ID}`,
      skills: [{ id: STAGED_ID, dir: stagedDir, expectedHash: hashed.hash }],
      workspace: { dir: workspace, maxBytes: 16 * 1024 * 1024, maxFiles: 100 },
      chatId: POLICY_CHAT,
      timeoutMs: POLICY_TIMEOUT_MS,
      maxOutputBytes: 16 * 1024,
    });
    const first = result.stdout.split('\n')[0]?.trim() ?? '';
    if (result.status === 'ok' && result.exitCode === 0 && first === 'allow') return { allow: true };
    if (/^deny\b/.test(first)) return { allow: false, reason: first.replace(/^deny:?\s*/, '') || 'no reason given' };
    const said = result.stderr.trim().split('\n')[0] ?? '';
    return { allow: false, reason: `the policy command did not answer allow (${result.status}${result.exitCode === null ? '' : `, exit ${result.exitCode}`}${result.reason ? `: ${result.reason}` : ''}${said ? `; it said: ${said.slice(0, 200)}` : ''})` };
  } catch (error) {
    return { allow: false, reason: `the policy command could not run (${(error as Error).message})` };
  } finally {
    await rm(workspace, { recursive: true, force: true });
  }
}
