import { ApplicationCommandOptionType, ApplicationCommandType } from 'discord.js';
import type { Skill } from '../../src/skills/types.ts';

/** Guild (0) and the bot's DMs (1); installed to servers (0). */
const WHERE = { contexts: [0, 1], integration_types: [0] };

/**
 * A small fixed set, never one command per skill (Discord allows a bot 100): `/ask PROMPT`, `/skill ID [args]`
 * with ID autocompleted from the skills of the channel, `/skills`.
 */
export const SLASH_COMMANDS = [
  {
    name: 'ask',
    type: ApplicationCommandType.ChatInput,
    description: 'Ask skillbot; in a channel it answers in a new thread',
    options: [{ type: ApplicationCommandOptionType.String, name: 'prompt', description: 'Your question or request', required: true, max_length: 4000 }],
    ...WHERE,
  },
  {
    name: 'skill',
    type: ApplicationCommandType.ChatInput,
    description: 'Use one skill by its id',
    options: [
      { type: ApplicationCommandOptionType.String, name: 'id', description: 'The skill (start typing to search)', required: true, autocomplete: true, max_length: 100 },
      { type: ApplicationCommandOptionType.String, name: 'args', description: 'What to do with it', required: false, max_length: 4000 },
    ],
    ...WHERE,
  },
  {
    name: 'skills',
    type: ApplicationCommandType.ChatInput,
    description: 'List the skills you can use here (only you see the list)',
    ...WHERE,
  },
];

const clip = (text: string, max: number) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);

/** Up to 25 autocomplete choices for what was typed: id prefix first, then id, then description matches. */
export function skillChoices(skills: readonly Skill[], typed: string): Array<{ name: string; value: string }> {
  const query = typed.trim().toLowerCase();
  const rank = (skill: Skill) => {
    if (query === '' || skill.id.startsWith(query)) return 0;
    if (skill.id.includes(query)) return 1;
    return skill.description.toLowerCase().includes(query) ? 2 : 3;
  };
  return skills
    .map((skill) => ({ skill, rank: rank(skill) }))
    .filter((entry) => entry.rank < 3)
    .sort((a, b) => a.rank - b.rank || a.skill.id.localeCompare(b.skill.id))
    .slice(0, 25)
    .map(({ skill }) => ({ name: clip(`${skill.id} — ${skill.description.replace(/\s+/g, ' ')}`, 100), value: skill.id }));
}

/** The `/skills` answer. */
export function skillList(skills: readonly Skill[]): string {
  if (skills.length === 0) return 'No skills are enabled in this channel.';
  const lines = skills.map((skill) => `• \`${skill.id}\` — ${clip(skill.description.replace(/\s+/g, ' '), 200)}`);
  return [`**Skills you can use here** (${skills.length}). Run one with \`/skill\`, or just ask.`, ...lines].join('\n');
}
