// A reload that only replaces skills by new versions of the same ids derives its snapshot from the last one.
import { describe, expect, it } from 'vitest';
import type { IndexedFolder } from '../../src/skills/indexSkill.ts';
import { IndexedSnapshot } from '../../src/skills/snapshot.ts';
import type { Skill } from '../../src/skills/types.ts';
import { skillValue } from './helpers.ts';

const entry = (skill: Skill, rootIndex = 0): IndexedFolder => ({ root: `/r${rootIndex}`, rootIndex, folder: `/r${rootIndex}/${skill.id}`, hash: skill.hash, watchDirs: [], skill });

describe('snapshots derived from edits', () => {
  it('answers exactly as a snapshot built in full would', () => {
    const skills = ['alpha', 'beta', 'gamma'].map((id) => skillValue(id, `The ${id} skill.`));
    const previous = new IndexedSnapshot(1, skills.map((skill) => entry(skill)));
    const edited = skillValue('beta', 'Beta, rewritten.', { hash: '1'.repeat(64) });
    const derived = IndexedSnapshot.edited(previous, 2, [{ before: skills[1] as Skill, after: edited }]);
    const full = new IndexedSnapshot(2, [skills[0], edited, skills[2]].map((skill) => entry(skill as Skill)));
    expect(derived?.list()).toEqual(full.list());
    expect(derived?.get('beta')).toBe(edited);
    expect(derived?.catalog.text).toBe(full.catalog.text);
    expect(derived?.search('rewritten')[0]?.id).toBe('beta');
    // The previous snapshot is untouched.
    expect(previous.get('beta')?.description).toBe('The beta skill.');
  });

  it('declines when the id changes, the skill was not the winner, or another folder competes for the id', () => {
    const alpha = skillValue('alpha', 'A.');
    const shadow = { ...skillValue('alpha', 'Shadowed A.'), folder: '/r1/alpha' };
    const previous = new IndexedSnapshot(1, [entry(alpha), entry(shadow, 1)]);
    expect(IndexedSnapshot.edited(previous, 2, [{ before: alpha, after: skillValue('alpha', 'A2.') }])).toBeUndefined();
    const lone = new IndexedSnapshot(1, [entry(alpha)]);
    expect(IndexedSnapshot.edited(lone, 2, [{ before: alpha, after: skillValue('omega', 'O.') }])).toBeUndefined();
    expect(IndexedSnapshot.edited(lone, 2, [{ before: skillValue('alpha', 'Other.'), after: skillValue('alpha', 'A2.') }])).toBeUndefined();
  });
});
