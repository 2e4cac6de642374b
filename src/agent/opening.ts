import type { MessageParam } from '@anthropic-ai/sdk/resources/messages';
import type { IncomingMessage } from '../platform.ts';
import { loadSkillForTurn } from './skillTools.ts';
import type { ToolDeps, TurnContext } from './turnContext.ts';

/**
 * `/skill ID args`: the runtime loads the skill itself and hands the model the result as if it had called
 * load_skill, so the model spends no round trip and skill content still enters only as a tool result.
 */
export async function explicitSkillOpening(deps: ToolDeps, turn: TurnContext, message: IncomingMessage): Promise<MessageParam[]> {
  const skill = message.skill;
  if (!skill) return [{ role: 'user', content: message.text }];
  const toolUseId = `toolu_skill_${turn.turnId}`;
  const envelope = await loadSkillForTurn(deps, turn, skill.id);
  const request = skill.args.trim()
    ? `Use it now for this request: ${skill.args.trim()}`
    : 'Use it now.';
  return [
    { role: 'user', content: message.text.trim() || `/skill ${skill.id} ${skill.args}`.trim() },
    { role: 'assistant', content: [{ type: 'tool_use', id: toolUseId, name: 'load_skill', input: { skill_id: skill.id } }] },
    {
      role: 'user',
      content: [
        { type: 'tool_result', tool_use_id: toolUseId, content: envelope.content, is_error: envelope.isError },
        { type: 'text', text: `I asked for the skill "${skill.id}" explicitly. ${request}` },
      ],
    },
  ];
}
