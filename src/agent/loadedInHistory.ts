// Which skills the model can still see in a chat: a load_skill call (the model's own or one made by the
// runtime) whose result was not an error, in the history the next request will carry. History is trimmed to
// a budget, so a skill activated long ago may have dropped out; then it is injected again.
import type { MessageParam } from '@anthropic-ai/sdk/resources/messages';
import { LOAD_SKILL } from './tools/loadSkill.ts';

export function skillsLoadedInHistory(history: readonly MessageParam[]): Set<string> {
  const requested = new Map<string, string>();
  const loaded = new Set<string>();
  for (const message of history) {
    if (typeof message.content === 'string') continue;
    for (const block of message.content) {
      if (block.type === 'tool_use' && block.name === LOAD_SKILL) {
        const input = block.input as { skill_id?: unknown } | null;
        if (typeof input?.skill_id === 'string') requested.set(block.id, input.skill_id);
      } else if (block.type === 'tool_result' && block.is_error !== true) {
        const skillId = requested.get(block.tool_use_id);
        if (skillId !== undefined) loaded.add(skillId);
      }
    }
  }
  return loaded;
}
