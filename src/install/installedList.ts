// `/skills installed`: what a world has of the installed skills (its own and every world's), with source and pin.
import type { InstalledSkill } from './installRecords.ts';

export function visibleIn(skill: InstalledSkill, worldId: string): boolean {
  return skill.scope === 'defaults' || skill.scope === worldId;
}

export function installedListText(skills: readonly InstalledSkill[], worldId: string): string {
  const here = skills.filter((skill) => visibleIn(skill, worldId));
  if (here.length === 0) return 'No skills are installed here. `/skills install SOURCE` adds one.';
  return [
    `Installed skills (${here.length}):`,
    ...here.map((skill) => {
      const pin = skill.origin.kind === 'git' ? `commit ${skill.origin.commit.slice(0, 12)}` : `file sha256 ${skill.origin.sha256.slice(0, 12)}`;
      return `• ${skill.id}: ${skill.source} at ${pin}, content ${skill.contentHash.slice(0, 12)}${skill.scope === 'defaults' ? ', every channel' : ''}; approved by ${skill.approvedBy}`;
    }),
  ].join('\n');
}
