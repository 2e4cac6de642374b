// find_skills' ranked search: the right skill first, kept in step with edits, narrowed to what a caller may see.
import { describe, expect, it } from 'vitest';
import { SkillSearchIndex } from '../../src/skills/skillSearch.ts';
import { IndexedSnapshot } from '../../src/skills/snapshot.ts';
import type { IndexedFolder } from '../../src/skills/indexSkill.ts';
import type { Skill } from '../../src/skills/types.ts';
import { skillValue } from './helpers.ts';

const SKILLS: Skill[] = [
  skillValue('release-notes', 'Draft release notes from merged pull requests, grouped into features and fixes.', { argumentHint: '[version]' }),
  skillValue('invoice-chaser', 'Find unpaid invoices in Xero and draft polite reminder emails.'),
  skillValue('disk-report', 'Report disk usage, memory and load of the machine.', { triggers: ['disk space', 'server full'] }),
  skillValue('standup-summary', 'Summarise the standup thread into blockers and next steps.'),
];

const folders = (skills: readonly Skill[]): IndexedFolder[] =>
  skills.map((skill) => ({ root: '/skills', rootIndex: 0, folder: skill.folder, hash: skill.hash, watchDirs: [], skill }));

describe('skill search', () => {
  it('ranks by ids, descriptions, triggers and hints, across inflections', () => {
    const index = new SkillSearchIndex();
    index.sync(SKILLS);
    expect(index.search('summarizing the stand-up')[0]?.id).toBe('standup-summary');
    expect(index.search('chase the unpaid invoice')[0]?.id).toBe('invoice-chaser');
    expect(index.search('our server is full')[0]?.id).toBe('disk-report');
    expect(index.search('notes for a version')[0]).toMatchObject({ id: 'release-notes', argumentHint: '[version]' });
    expect(index.search('quantum chromodynamics')).toEqual([]);
  });

  it('follows edits and removals, and narrows answers with accept', () => {
    const index = new SkillSearchIndex();
    index.sync(SKILLS);
    const edited = skillValue('disk-report', 'Plot the weather forecast.');
    index.sync([...SKILLS.filter((skill) => skill.id !== 'disk-report' && skill.id !== 'invoice-chaser'), edited]);
    expect(index.size).toBe(3);
    expect(index.search('weather')[0]?.id).toBe('disk-report');
    expect(index.search('usage memory machine').map((hit) => hit.id)).not.toContain('disk-report');
    expect(index.search('invoices')).toEqual([]);
    expect(index.search('release notes', { accept: (skill) => skill.id !== 'release-notes' }).map((hit) => hit.id)).not.toContain('release-notes');
  });

  it('answers a snapshot with its own skills only, even when the shared index holds a newer reload', () => {
    const index = new SkillSearchIndex();
    const old = new IndexedSnapshot(1, folders(SKILLS), { searchIndex: index });
    expect(old.search('invoices')[0]?.id).toBe('invoice-chaser');
    const renamed = skillValue('invoice-chaser', 'Water the office plants.');
    const newer = new IndexedSnapshot(2, folders([...SKILLS.slice(0, 1), renamed, ...SKILLS.slice(2)]), { searchIndex: index });
    expect(newer.search('plants')[0]?.id).toBe('invoice-chaser');
    // The old snapshot still answers from the skill objects it holds.
    expect(old.search('plants')).toEqual([]);
    expect(old.search('invoices')[0]?.description).toBe('Find unpaid invoices in Xero and draft polite reminder emails.');
  });
});
