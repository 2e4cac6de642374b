// One install, prepared: the source fetched into staging, its skills found and scanned, the operator's policy
// asked, and the review written. Nothing is kept and nothing runs: a plan is either committed (installer.ts)
// or discarded, and its staging folder removed either way.
import type { Executor, HashFolder } from '../exec/types.ts';
import { type InstallBounds } from './bounds.ts';
import { fetchArchive } from './fetchArchive.ts';
import { fetchGit, type FetchResult } from './fetchGit.ts';
import type { Finding } from './findings.ts';
import { askPolicy } from './policyCommand.ts';
import { buildReview, type Review } from './review.ts';
import { scanStaged } from './scanner.ts';
import type { InstallSource } from './source.ts';
import { findStagedSkills, type StagedSkill } from './stagedSkills.ts';
import { removeStaged, type Staged } from './staging.ts';

export interface PlanInput {
  source: InstallSource;
  /** The shared file's bytes, for a `file` source. */
  file?: Uint8Array;
  scope: string;
  policy: 'warn' | 'block';
  /** Skill ids the bot has now that the staged ones must not take, each with where it comes from. */
  existing: ReadonlyMap<string, string>;
  /** Only these ids (an update of one skill); undefined: every skill found. */
  only?: string;
  /** An update: the changes from the installed version, written out by the caller (given the staged skill). */
  describeChanges?: (skill: StagedSkill) => Promise<string[]>;
}

export interface PlanDeps {
  stagingDir: string;
  bounds: InstallBounds;
  policyCommand?: string;
  executor: Executor;
  hashFolder: HashFolder;
}

export interface Plan {
  source: InstallSource;
  staged: Staged;
  skills: StagedSkill[];
  findings: Finding[];
  review: Review;
  /** Set when the plan may not go to a card: the policy refused it, or findings under `block`. */
  refused?: string;
  discard(): Promise<void>;
}

export type PlanResult = { ok: true; plan: Plan } | { ok: false; error: string };

async function fetchSource(input: PlanInput, deps: PlanDeps): Promise<FetchResult> {
  if (input.source.kind === 'git') return fetchGit(input.source, deps.stagingDir, deps.bounds);
  if (input.file === undefined) return { ok: false, error: `the file ${input.source.name} did not come with the message` };
  return fetchArchive(input.source.name, input.file, deps.stagingDir, deps.bounds);
}

export async function preparePlan(input: PlanInput, deps: PlanDeps): Promise<PlanResult> {
  const fetched = await fetchSource(input, deps);
  if (!fetched.ok) return fetched;
  const staged = fetched.staged;
  const discard = () => removeStaged(staged.dir);
  try {
    const found = await findStagedSkills(staged);
    if (input.only !== undefined) {
      found.skills = found.skills.filter((skill) => skill.id === input.only);
      if (found.skills.length === 0) {
        await discard();
        return { ok: false, error: `the source no longer holds a skill named ${input.only}` };
      }
    }
    const findings = await scanStaged(staged, found, { existing: input.existing });
    const wanted = input.only === undefined ? findings : findings.filter((f) => found.skills.some((s) => s.folder === '' || f.file.startsWith(`${s.folder}/`)));
    const changes = input.describeChanges && found.skills[0] ? await input.describeChanges(found.skills[0]) : undefined;
    const review = await buildReview({
      origin: staged.origin,
      display: input.source.display,
      skills: found.skills,
      findings: wanted,
      ...(changes === undefined ? {} : { changes }),
      policy: input.policy,
      scope: input.scope,
    });
    let refused: string | undefined;
    const dangers = wanted.filter((f) => f.severity === 'danger');
    if (found.skills.length === 0) refused = 'no skill found there (no folder holds a SKILL.md)';
    else if (input.policy === 'block' && dangers.length > 0) refused = `this channel blocks installs with scanner findings, and there are ${dangers.length}`;
    else if (found.skills.some((skill) => skill.skill === undefined)) refused = 'a skill there is invalid (the findings say why)';
    else if (deps.policyCommand !== undefined) {
      const answer = await askPolicy(deps.policyCommand, staged.dir, deps);
      if (!answer.allow) refused = `the install policy denied it: ${answer.reason}`;
    }
    return { ok: true, plan: { source: input.source, staged, skills: found.skills, findings: wanted, review, ...(refused === undefined ? {} : { refused }), discard } };
  } catch (error) {
    await discard();
    return { ok: false, error: `reading what was fetched failed: ${(error as Error).message}` };
  }
}
