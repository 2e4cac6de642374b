// The slash commands skillbot registers (`/ask`, `/skill`, `/skills`), to a guild or globally.
import { ApplicationCommandOptionType, ApplicationCommandType, ComponentType } from 'discord.js';
import type { Skill } from '../../src/platform/index.ts';

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
    description: 'List the skills you can use here (only you see the list), or install, update, remove them',
    options: [
      {
        type: ApplicationCommandOptionType.String,
        name: 'command',
        description: 'Leave empty to list; install, installed, update or remove',
        required: false,
        choices: ['install', 'installed', 'update', 'remove'].map((name) => ({ name, value: name })),
      },
      { type: ApplicationCommandOptionType.String, name: 'source', description: 'install: github:owner/repo[/path][@ref] or a git URL', required: false, max_length: 500 },
      { type: ApplicationCommandOptionType.String, name: 'id', description: 'update, remove: the installed skill', required: false, max_length: 100 },
      { type: ApplicationCommandOptionType.String, name: 'skill', description: 'install: only these skills of a collection (names, comma-separated)', required: false, max_length: 500 },
    ],
    ...WHERE,
  },
  ...(['routine', 'hook'] as const).map((name) => ({
    name,
    type: ApplicationCommandType.ChatInput,
    description: name === 'routine' ? 'Routines here (only you see the answer)' : 'Webhooks that start work in a thread here (only you see the URL and secret)',
    options: [
      {
        type: ApplicationCommandOptionType.String,
        name: 'command',
        description: name === 'routine' ? 'add WHEN :: INSTRUCTIONS | list | pause ID | resume ID | remove ID' : 'add github|generic [events] [:: INSTRUCTIONS] | list | remove ID',
        required: false,
        max_length: 4000,
      },
    ],
    ...WHERE,
  })),
  {
    name: 'usage',
    type: ApplicationCommandType.ChatInput,
    description: 'Your own use of the bot here (questions, tokens) against its limits (only you see it)',
    ...WHERE,
  },
];

const clip = (text: string, max: number) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);

/** The id followed by Claude Code's `argument-hint` when the skill has one: `release-notes [version]`. */
const withHint = (skill: Skill): string => (skill.argumentHint ? `${skill.id} ${clip(skill.argumentHint, 40)}` : skill.id);

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
    .map(({ skill }) => ({ name: clip(`${withHint(skill)} — ${skill.description.replace(/\s+/g, ' ')}`, 100), value: skill.id }));
}

/** Components V2 holds at most 4,000 characters of text per message; a page stays well inside. */
const PAGE_TEXT = 3500;
const ACCENT = 0x5865f2;

/**
 * The `/skills` answer as Components V2 messages (flag IS_COMPONENTS_V2): one container per message, the
 * heading, then the skills (id, argument hint, description) in text blocks, then how to run one.
 */
export function skillListPages(skills: readonly Skill[]): unknown[][] {
  const text = (content: string) => ({ type: ComponentType.TextDisplay, content });
  if (skills.length === 0) return [[{ type: ComponentType.Container, components: [text('No skills are enabled in this channel.')] }]];
  const lines = skills.map((skill) => `**\`${skill.id}\`**${skill.argumentHint ? ` ${clip(skill.argumentHint, 40)}` : ''} — ${clip(skill.description.replace(/\s+/g, ' '), 200)}`);
  const blocks: string[][] = [[]];
  let size = 0;
  for (const line of lines) {
    if (size + line.length + 1 > PAGE_TEXT) {
      blocks.push([]);
      size = 0;
    }
    blocks[blocks.length - 1]?.push(line);
    size += line.length + 1;
  }
  return blocks.map((block, index) => [
    {
      type: ComponentType.Container,
      accent_color: ACCENT,
      components: [
        ...(index === 0 ? [text(`### Skills you can use here (${skills.length})`), { type: ComponentType.Separator }] : []),
        text(block.join('\n')),
        ...(index === blocks.length - 1 ? [text('-# Run one with `/skill`, or just ask.')] : []),
      ],
    },
  ]);
}
