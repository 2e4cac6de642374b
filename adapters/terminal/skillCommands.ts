// `/skill ID [args]` and `/skills` typed in the terminal chat, as the Slack and Discord commands work.
import type { Skill } from '../../src/platform/index.ts';

/** `/skill ID [args]` as the core takes it, or undefined when the line is not that command. */
export function parseSkillCommand(line: string): { id: string; args: string } | undefined {
  const match = /^\/skill\s+(\S+)\s*([\s\S]*)$/.exec(line.trim());
  return match?.[1] ? { id: match[1], args: (match[2] ?? '').trim() } : undefined;
}

/** The `/skills` answer: what a person may run here, with each skill's argument hint. */
export function terminalSkillList(skills: readonly Skill[]): string {
  if (skills.length === 0) return 'No skills are available here.\n';
  const lines = skills.map((skill) => {
    const usage = skill.argumentHint ? `${skill.id} ${skill.argumentHint}` : skill.id;
    const description = skill.description.replace(/\s+/g, ' ').trim();
    return `  /skill ${usage}  ${description.length > 100 ? `${description.slice(0, 99)}…` : description}`;
  });
  return `Skills you can run (${skills.length}):\n${lines.join('\n')}\n`;
}
