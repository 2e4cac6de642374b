// `load_skill(skill_id)`: the envelope for one skill, answered from a snapshot (no disk, never throws).
import { renderSkillContext, renderSkillFailure, type SkillContextExtra } from './envelope.ts';
import type { SkillSnapshot } from './types.ts';

export function loadSkill(snapshot: SkillSnapshot, skillId: string, extra?: SkillContextExtra): string {
  const skill = snapshot.get(skillId);
  return skill ? renderSkillContext(skill, extra) : missingSkill(snapshot, skillId);
}

/**
 * The envelope for an id that gives no usable skill: a broken skill's errors, or not found with the closest
 * ids. `visible` hides skills the asker may not use (a world's allow-list), from both the errors and the hints.
 */
export function missingSkill(snapshot: SkillSnapshot, skillId: string, visible: (id: string) => boolean = () => true): string {
  const broken = visible(skillId) ? snapshot.invalid.find((entry) => entry.id === skillId) : undefined;
  if (broken) {
    const first = broken.errors[0];
    const code = first?.code ?? 'SKILL_INVALID';
    const message = `The skill "${skillId}" failed to load: ${broken.errors.map((p) => p.message).join('; ')}`;
    return renderSkillFailure(skillId, 'error', code, message, { folder: broken.folder });
  }
  const closest = snapshot.closest(skillId, 10).filter(visible).slice(0, 3);
  const message =
    closest.length > 0
      ? `No skill has the id "${skillId}". Closest ids: ${closest.join(', ')}.`
      : `No skill has the id "${skillId}".`;
  return renderSkillFailure(skillId, 'not_found', 'SKILL_NOT_FOUND', message, closest.length > 0 ? { closest: closest.join(', ') } : {});
}
