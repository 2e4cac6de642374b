// Binding a run to the bytes a person approved. The approval (and a session grant) names the skill's content
// hash; every run of the skill's code carries it as ExecRequest.expectedHash. The executor itself runs a
// verified copy (ExecutorOptions.hashFolder); this wrapper checks the folder first as well, so a change is
// refused before anything starts and, either way, the model and the person hear one plain sentence: the
// skill changed since it was approved, and the next attempt asks again.
import { performance } from 'node:perf_hooks';
import { refusal } from '../exec/results.ts';
import type { ExecRequest, Executor, HashFolder } from '../exec/types.ts';
import { shortHash } from './gate.ts';

/** The sentence a run refused for a changed skill carries (the model relays it; tests look for it). */
export function changedSinceApproved(approved: string, now: string): string {
  return (
    `The skill's files changed since its code was approved (approved content ${shortHash(approved)}, now ${shortHash(now)}), ` +
    'so it did not run. Ask again: the next attempt puts a new question to the person.'
  );
}

/**
 * The hash to ask about: what is on disk now, not what the registry saw when the turn began, so a question
 * (and the grant it may leave) covers the bytes that will be checked at run time. When the folder has no hash
 * any more (a symlink leading out appeared, it grew past a bound), why: nobody is asked about it.
 */
export async function contentToApprove(hashFolder: HashFolder | undefined, skill: { dir: string; hash: string }): Promise<{ hash: string } | { error: string }> {
  if (hashFolder === undefined) return { hash: skill.hash };
  const current = await hashFolder(skill.dir);
  return 'hash' in current ? current : { error: `The skill's files changed and can no longer be approved (${current.error}), so nothing ran and nobody was asked.` };
}

/** An executor that refuses a request whose skill folder no longer hashes to its `expectedHash`. */
export function bindToApprovedContent(executor: Executor, hashFolder: HashFolder): Executor {
  async function check(request: ExecRequest & { expectedHash: string; skillDir: string }): Promise<string | undefined> {
    const current = await hashFolder(request.skillDir);
    if ('error' in current) return `The skill's files cannot be checked against what was approved (${current.error}), so it did not run.`;
    return current.hash === request.expectedHash ? undefined : changedSinceApproved(request.expectedHash, current.hash);
  }
  return {
    sandbox: () => executor.sandbox(),
    workspaceOwner: (chatId) => executor.workspaceOwner(chatId),
    close: () => executor.close(),
    egress: (socketPath, policy, owner) => executor.egress(socketPath, policy, owner),
    egressTrust: () => executor.egressTrust(),
    startService: (spec) => executor.startService(spec),
    async run(request) {
      const { expectedHash, skillDir } = request;
      if (expectedHash === undefined || skillDir === undefined) return executor.run(request);
      const before = await check({ ...request, expectedHash, skillDir });
      if (before !== undefined) return refusal(performance.now(), before);
      const result = await executor.run(request);
      if (result.status !== 'refused') return result;
      // The executor's own check of its copy may have caught a change made after ours: say so plainly.
      const after = await check({ ...request, expectedHash, skillDir });
      return after === undefined ? result : { ...result, reason: after };
    },
  };
}
