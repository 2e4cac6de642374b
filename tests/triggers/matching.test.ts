import { describe, expect, it } from 'vitest';
import { compileTriggers, matchTriggers, rankTriggerMatches, type TriggerSource } from '../../src/skills/triggers.ts';

const skill = (id: string, triggers: string[], disableModelInvocation = false): TriggerSource => ({ id, triggers, disableModelInvocation });
const ids = (text: string, skills: readonly TriggerSource[], max = 3): string[] => matchTriggers(text, skills, { max }).map((match) => match.skillId);

describe('trigger phrases match whole tokens only', () => {
  const falsePositives: Array<[trigger: string, text: string]> = [
    ['git', 'have a look at github for me'],
    ['test', 'what is the latest version?'],
    ['issue', 'hand me a tissue'],
    ['deploy', 'we employ three people'],
    ['code review', 'run a node review please'],
    ['code review', 'code-review is one word here'],
    ['c++', 'write c code'],
    ['release notes', 'release the notes'],
    ['sql', 'postgresql is down'],
    ['ci', 'decide quickly'],
  ];
  it.each(falsePositives)('%j does not match %j', (trigger, text) => {
    expect(ids(text, [skill('s', [trigger])])).toEqual([]);
  });

  const truePositives: Array<[trigger: string, text: string]> = [
    ['git', 'git status shows nothing'],
    ['git', 'push it to git.'],
    ['test', 'Test this, please'],
    ['issue', 'open an issue: the build broke'],
    ['deploy', '(deploy) the app'],
    ['code review', 'I need a code review'],
    ['c++', 'write c++ code'],
    ['c++', 'is c++, or rust, faster?'],
    ['node.js', 'upgrade node.js now'],
    ['部署', '请部署服务'],
    ['デプロイ', '今からデプロイします'],
    ['café', 'un cafe\u0301 au lait'],
  ];
  it.each(truePositives)('%j matches %j', (trigger, text) => {
    expect(ids(text, [skill('s', [trigger])])).toEqual(['s']);
  });

  it('compares after NFKC, case folding and whitespace collapsing', () => {
    const skills = [skill('review', ['Code Review'])];
    expect(ids('ＣＯＤＥ　ＲＥＶＩＥＷ please', skills)).toEqual(['review']);
    expect(ids('a code \t\n  review', skills)).toEqual(['review']);
    expect(ids('CODE REVIEW', [skill('review', ['  code   review  '])])).toEqual(['review']);
  });

  it('treats regex metacharacters in a trigger as literal text and never throws', () => {
    const skills = [skill('regex', ['a.*b', '(unclosed', '[', 'x+?', '\\d', '$HOME', '^start'])];
    expect(() => rankTriggerMatches('anything at all (', skills)).not.toThrow();
    expect(ids('a.*b', skills)).toEqual(['regex']);
    expect(ids('axxb', skills)).toEqual([]);
    expect(ids('9', skills)).toEqual([]);
    expect(rankTriggerMatches('echo $HOME and (unclosed and \\d', skills)[0]?.matched).toEqual(['(unclosed', '\\d', '$HOME']);
  });
});

describe('ranking', () => {
  it('scores by matched phrases, longer phrases weighing more, and reports which phrases matched', () => {
    const skills = [skill('short', ['review']), skill('long', ['pull request review']), skill('two', ['review', 'pull request'])];
    const ranked = matchTriggers('please do a pull request review', skills, { max: 3 });
    // `pull request review` (3 words) outweighs `review` (1); equal scores go to the skill with more phrases.
    expect(ranked).toEqual([
      { skillId: 'two', score: 3, matched: ['review', 'pull request'] },
      { skillId: 'long', score: 3, matched: ['pull request review'] },
      { skillId: 'short', score: 1, matched: ['review'] },
    ]);
  });

  it('counts a phrase once however often it occurs, and duplicate phrases once', () => {
    const [match] = matchTriggers('deploy, deploy, DEPLOY', [skill('d', ['deploy', 'Deploy'])], { max: 3 });
    expect(match).toEqual({ skillId: 'd', score: 1, matched: ['deploy'] });
  });

  it('breaks ties by skill id, whatever order the skills come in', () => {
    const skills = [skill('zeta', ['deploy']), skill('alpha', ['deploy']), skill('mid', ['deploy'])];
    expect(ids('deploy', skills)).toEqual(['alpha', 'mid', 'zeta']);
    expect(ids('deploy', [...skills].reverse())).toEqual(['alpha', 'mid', 'zeta']);
  });

  it('returns at most max skills, the best ones', () => {
    const skills = ['a', 'b', 'c', 'd', 'e'].map((id) => skill(id, ['deploy']));
    skills.push(skill('best', ['deploy', 'prod']));
    expect(ids('deploy to prod', skills)).toEqual(['best', 'a', 'b']);
    expect(ids('deploy to prod', skills, 1)).toEqual(['best']);
    expect(ids('deploy to prod', skills, 0)).toEqual([]);
  });

  it('never activates a skill with disable-model-invocation, but ranks it for authors', () => {
    const skills = [skill('manual', ['deploy'], true), skill('auto', ['deploy'])];
    expect(ids('deploy', skills)).toEqual(['auto']);
    expect(rankTriggerMatches('deploy', skills).map((match) => [match.skillId, match.disabled])).toEqual([
      ['auto', false],
      ['manual', true],
    ]);
  });

  it('leaves out skills not accepted (say, not allowed in the world) before cutting to max', () => {
    const skills = [skill('a', ['deploy']), skill('b', ['deploy']), skill('c', ['deploy'])];
    const matches = matchTriggers('deploy', skills, { max: 2, accept: (id) => id !== 'a' });
    expect(matches.map((match) => match.skillId)).toEqual(['b', 'c']);
  });

  it('accepts a precompiled index, with the same answers', () => {
    const skills = [skill('review', ['code review']), skill('git', ['git'])];
    const index = compileTriggers(skills);
    expect(matchTriggers('git code review', index, { max: 3 })).toEqual(matchTriggers('git code review', skills, { max: 3 }));
  });

  it('sees a change to a list that is not frozen, and reuses the compiled phrases of a frozen one', () => {
    const skills = [skill('a', ['deploy'])];
    expect(ids('ship it', skills)).toEqual([]);
    skills.push(skill('b', ['ship']));
    expect(ids('ship it', skills)).toEqual(['b']);
    const frozen = Object.freeze([skill('c', ['ship'])]);
    expect(ids('ship it', frozen)).toEqual(['c']);
    expect(ids('ship it', frozen)).toEqual(['c']);
  });
});
