// The `/skills` answer, shared by the slash command and a mention in a thread (`@skillbot skills`).
import { safeText } from './slackText.ts';

const LIST_LIMIT = 3500;
const DESCRIPTION_LIMIT = 160;

function shorten(text: string, limit: number): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > limit ? `${line.slice(0, limit - 1)}…` : line;
}

/** The `/skills` answer: every skill this world may use, id and description. */
export function skillListText(skills: ReadonlyArray<{ id: string; description: string; argumentHint?: string }>): string {
  if (skills.length === 0) return 'No skills are available in this channel.';
  const lines = [`*Skills in this channel* (${skills.length}):`];
  let size = lines[0]?.length ?? 0;
  for (const [index, skill] of skills.entries()) {
    const hint = skill.argumentHint ? ` ${safeText(shorten(skill.argumentHint, 40))}` : '';
    const line = `• \`${safeText(skill.id)}\`${hint}: ${safeText(shorten(skill.description, DESCRIPTION_LIMIT))}`;
    if (size + line.length > LIST_LIMIT) {
      lines.push(`…and ${skills.length - index} more.`);
      break;
    }
    lines.push(line);
    size += line.length + 1;
  }
  lines.push('Run one with `/skill ID [args]`, or just ask me in a thread with an @mention.');
  return lines.join('\n');
}
