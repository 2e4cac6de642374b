// Dependencies are visible: what a skill's code uses that the host lacks (for `skills validate` and `doctor`),
// and what a failed run's stderr says is missing (for the run result).
import type { SkillProblem } from '../types.ts';
import type { HostView } from './host.ts';
import { adviceFor, describeAdvice, pipInstall } from './packages.ts';
import { scanSkillDependencies } from './scan.ts';
import type { Dependency, InstallAdvice, MissingDependency } from './types.ts';

export { HostView } from './host.ts';
export { missingDependencyHint } from './hint.ts';
export { scanSkillDependencies } from './scan.ts';
export type { Dependency, MissingDependency } from './types.ts';

export const DEPENDENCY_MISSING = 'DEPENDENCY_MISSING';

/**
 * The dependencies the host lacks, with what to install. Optional ones (imports guarded by `except ImportError`)
 * are left out; without python3 on the sandbox PATH only python3 itself is reported, not each module.
 */
export function missingOnHost(dependencies: readonly Dependency[], host: HostView, skillDir?: string): MissingDependency[] {
  const missing = dependencies.flatMap((dependency): Dependency[] => {
    if (dependency.optional) return [];
    if (!host.has(dependency, skillDir)) return [dependency];
    // There, but perhaps too old: a package folder without a submodule the code imports (imageio 2.4 has no v3).
    const lacks = dependency.kind === 'python' ? (dependency.submodules ?? []).filter((sub) => !host.hasPythonSubmodule(dependency.name, sub)) : [];
    return lacks.length > 0 && host.hasPythonSubmodule(dependency.name, '__init__') ? [{ ...dependency, lacks }] : [];
  });
  const noPython = host.pythonSite() === null;
  const shown = noPython ? missing.filter((dependency) => dependency.kind !== 'python') : missing;
  if (noPython && shown.length < missing.length && !shown.some((d) => d.kind === 'program' && d.name === 'python3')) {
    const first = missing.find((dependency) => dependency.kind === 'python')!;
    shown.push({ kind: 'program', name: 'python3', sites: first.sites, optional: false, mentionedOnly: missing.every((d) => d.kind !== 'python' || d.mentionedOnly) });
  }
  return shown.map((dependency) => ({ ...dependency, install: checkedAdvice(dependency) }));
}

/**
 * What to install, checked against what the package provides: code importing a submodule that the Debian package
 * lacks (imageio.v3; Debian 12 has 2.4.1) is told the newer one from pip, not the package that would not do.
 */
function checkedAdvice(dependency: Dependency): InstallAdvice {
  const advice = adviceFor(dependency.kind, dependency.name);
  const newer = advice.newer;
  if (newer === undefined || !(dependency.submodules ?? []).some((sub) => newer.submodules.includes(sub))) return advice;
  return { pip: newer.pip, note: newer.note, newer };
}

/**
 * The scan and the check for one skill folder, as `DEPENDENCY_MISSING` warnings (one per missing thing): what the
 * skill's code needs first, then what only its documents mention (`optional: true`).
 */
export async function dependencyWarnings(skillDir: string, host: HostView): Promise<SkillProblem[]> {
  const missing = missingOnHost(await scanSkillDependencies(skillDir), host, skillDir);
  const ordered = [...missing.filter((d) => !d.mentionedOnly), ...missing.filter((d) => d.mentionedOnly)];
  return ordered.map((dependency) => ({ code: DEPENDENCY_MISSING, message: describeMissing(dependency), ...(dependency.mentionedOnly ? { optional: true } : {}) }));
}

/** `scripts/fill.py:3: imports the Python module "pypdf", which this host lacks; to install: Debian's python3-pypdf (or: pip install pypdf)` */
export function describeMissing(dependency: MissingDependency): string {
  const [first, ...rest] = dependency.sites;
  const where = first === undefined ? '' : `${first.file}:${first.line}${rest.length > 0 ? ` (and ${rest.length} more place(s))` : ''}: `;
  if (dependency.lacks !== undefined) {
    const newer = dependency.install.newer;
    const why = newer === undefined ? `this host's ${dependency.name} is older than that` : newer.note;
    return `${where}imports ${dependency.lacks.map((sub) => `${dependency.name}.${sub}`).join(', ')}, which this host's "${dependency.name}" lacks: ${why}; to install a newer one: ${pipInstall(newer?.pip ?? dependency.install.pip ?? dependency.name, true)}`;
  }
  const verb = {
    program: `runs the program "${dependency.name}"`,
    python: `imports the Python module "${dependency.name}"`,
    node: `requires the Node package "${dependency.name}"`,
  }[dependency.kind];
  // A document's example: say so, so nobody installs a list of alternatives thinking the skill needs them all.
  const mentioned = dependency.mentionedOnly ? ` (mentioned in ${first?.file ?? 'SKILL.md'}; the skill's own code does not use it)` : '';
  return `${where}${verb}${mentioned}, which this host lacks; to install: ${describeAdvice(dependency.install)}`;
}

/** "pypdf (python3-pypdf)": a short name for a one-line summary (doctor). */
export function shortMissing(dependency: MissingDependency): string {
  if (dependency.lacks !== undefined) return `${dependency.lacks.map((sub) => `${dependency.name}.${sub}`).join(', ')} (a newer ${dependency.name}: pip ${dependency.install.newer?.pip ?? dependency.name})`;
  const { debian, pip, npm } = dependency.install;
  const pkg = debian?.split(' ')[0] ?? (pip !== undefined ? `pip ${pip}` : `npm ${npm ?? dependency.name}`);
  return dependency.install.guessed === true || pkg === dependency.name ? dependency.name : `${dependency.name} (${pkg})`;
}
