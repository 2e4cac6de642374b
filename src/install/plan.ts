// One install, prepared: the source fetched into staging, its skills found and scanned, the operator's policy
// asked, and the review written for the skills picked (all of them unless some were named). Nothing is kept and
// nothing runs: a plan is either committed (installer.ts) or discarded, and its staging folder removed either
// way. A pick on the card narrows the same fetch (narrow): no second fetch, so the bytes stay the reviewed ones.
import type { Executor, HashFolder } from '../exec/types.ts';
import { type InstallBounds } from './bounds.ts';
import { fetchArchive } from './fetchArchive.ts';
import { fetchGit, type FetchResult } from './fetchGit.ts';
import type { Finding } from './findings.ts';
import { askPolicy } from './policyCommand.ts';
import { buildReview, type Review } from './review.ts';
import { scanStaged } from './scanner.ts';
import type { FetchGuard } from './sourceAddress.ts';
import type { InstallSource } from './source.ts';
import { pluginPartsLeftOut } from './pluginParts.ts';
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
  /** Only these ids (named with `--skill`, or an update's one); undefined: every skill found. */
  pick?: readonly string[];
  /** An update: only the picked skill is offered (no other skill of the source is put on its card). */
  update?: boolean;
  /** An update: the changes from the installed version, written out by the caller (given the staged skill). */
  describeChanges?: (skill: StagedSkill) => Promise<string[]>;
}

export interface PlanDeps {
  stagingDir: string;
  bounds: InstallBounds;
  policyCommand?: string;
  executor: Executor;
  hashFolder: HashFolder;
  /** Where a git source may be fetched from (the private-address guard). */
  guard: FetchGuard;
}

export interface Plan {
  source: InstallSource;
  staged: Staged;
  /** What the card offers to pick: every skill the source holds (an update: its one skill). */
  offered: StagedSkill[];
  /** What a yes installs. */
  skills: StagedSkill[];
  findings: Finding[];
  review: Review;
  /** Set when the plan may not go to a card: the policy refused it, or findings under `block`. */
  refused?: string;
  /** The same fetch with only these of `offered` picked: findings, review and refusal for exactly those. */
  narrow(ids: readonly string[]): Promise<Plan>;
  discard(): Promise<void>;
}

export type PlanResult = { ok: true; plan: Plan } | { ok: false; error: string };

async function fetchSource(input: PlanInput, deps: PlanDeps): Promise<FetchResult> {
  if (input.source.kind === 'git') return fetchGit(input.source, deps.stagingDir, deps.bounds, deps.guard);
  if (input.file === undefined) return { ok: false, error: `the file ${input.source.name} did not come with the message` };
  return fetchArchive(input.source.name, input.file, deps.stagingDir, deps.bounds);
}

const inFolder = (file: string, folder: string) => folder === '' || file === folder || file.startsWith(`${folder}/`);

function missingNames(wanted: readonly string[], found: readonly StagedSkill[], update: boolean): string | undefined {
  const missing = wanted.filter((id) => !found.some((skill) => skill.id === id));
  if (missing.length === 0) return undefined;
  if (update) return `the source no longer holds a skill named ${missing.join(', ')}`;
  const held = found.map((skill) => skill.id).join(', ') || 'none';
  return `the source holds no skill named ${missing.join(', ')} (it holds: ${held})`;
}

export async function preparePlan(input: PlanInput, deps: PlanDeps): Promise<PlanResult> {
  const fetched = await fetchSource(input, deps);
  if (!fetched.ok) return fetched;
  const staged = fetched.staged;
  const discard = () => removeStaged(staged.dir);
  try {
    const found = await findStagedSkills(staged);
    const wanted = input.pick === undefined ? undefined : [...new Set(input.pick)];
    const missing = wanted === undefined ? undefined : missingNames(wanted, found.skills, input.update === true);
    if (missing !== undefined) {
      await discard();
      return { ok: false, error: missing };
    }
    const all = await scanStaged(staged, found, { existing: input.existing });
    const policy = deps.policyCommand === undefined || found.skills.length === 0 ? undefined : await askPolicy(deps.policyCommand, staged.dir, deps);
    const leftOut = await pluginPartsLeftOut(staged.dir);
    const offered = input.update === true && wanted !== undefined ? found.skills.filter((skill) => wanted.includes(skill.id)) : found.skills;

    const view = async (ids: readonly string[] | undefined): Promise<Plan> => {
      const skills = ids === undefined ? offered : offered.filter((skill) => ids.includes(skill.id));
      // A finding of a skill not picked is not this install's; one outside every skill (a broken plugin.json) stays.
      const findings = all.filter((f) => skills.some((s) => inFolder(f.file, s.folder)) || !found.skills.some((s) => inFolder(f.file, s.folder)));
      const changes = input.describeChanges && skills[0] ? await input.describeChanges(skills[0]) : undefined;
      const review = await buildReview({
        origin: staged.origin,
        display: input.source.display,
        skills,
        ...(offered.length > 1 ? { offered: offered.map((skill) => skill.id) } : {}),
        findings,
        leftOut,
        ...(changes === undefined ? {} : { changes }),
        policy: input.policy,
        scope: input.scope,
      });
      let refused: string | undefined;
      const dangers = findings.filter((f) => f.severity === 'danger');
      if (found.skills.length === 0) refused = 'no skill found there (no folder holds a SKILL.md)';
      else if (input.policy === 'block' && dangers.length > 0) refused = `this channel blocks installs with scanner findings, and there are ${dangers.length}`;
      else if (skills.some((skill) => skill.skill === undefined)) refused = `a skill there is invalid (the findings say why)${offered.length > 1 ? '; `--skill NAME` picks the others' : ''}`;
      else if (policy !== undefined && !policy.allow) refused = `the install policy denied it: ${policy.reason}`;
      return {
        source: input.source,
        staged,
        offered,
        skills,
        findings,
        review,
        ...(refused === undefined ? {} : { refused }),
        narrow: (picked) => view(picked),
        discard,
      };
    };
    return { ok: true, plan: await view(wanted) };
  } catch (error) {
    await discard();
    return { ok: false, error: `reading what was fetched failed: ${(error as Error).message}` };
  }
}
