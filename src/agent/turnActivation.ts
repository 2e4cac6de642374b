// Which skills join a turn before the model reasons, and the messages that open the turn. `/skill ID` always
// wins; otherwise the message's trigger matches do (at most config.agent.maxTriggeredSkills, never a disabled
// skill, never one the world does not allow, never one the model can still see in the chat). Each is loaded
// by the runtime and handed over as a runtime-made load_skill exchange, so the model spends no round trip.
import type { MessageParam } from '@anthropic-ai/sdk/resources/messages';
import { LOAD_SKILL, loadSkillForTurn } from './tools/loadSkill.ts';
import type { ToolDeps, TurnContext } from './turnContext.ts';
import { type AgentSettings, worldAllowsSkill } from '../config/config.ts';
import type { IncomingMessage } from '../platform/port.ts';
import { matchTriggers, type TriggerMatch } from '../skills/triggers.ts';
import { activeSkills } from '../lifecycle/chatSkills.ts';
import { skillsLoadedInHistory } from './loadedInHistory.ts';
import { activateSkill, type SkillActivation } from './skillActivation.ts';
import { renderSkillFailure } from '../skills/envelope.ts';
import { isServerSkillId, personServerSkill } from './turnServerSkills.ts';

export interface TurnActivationDeps extends ToolDeps {
  config: { agent: Pick<AgentSettings, 'maxTriggeredSkills'> };
}

export interface TurnActivation {
  /** The messages that open the turn: the user's message, then any runtime-made load_skill exchange. */
  messages: MessageParam[];
  activations: SkillActivation[];
  /** The trigger matches that were activated (none with `/skill`). */
  triggered: TriggerMatch[];
}

/** The runtime's load_skill calls and their results, then a note in the user's voice saying what happened. */
function withLoads(userText: string, turnId: string, activations: readonly SkillActivation[], note: string): MessageParam[] {
  const ids = activations.map((_, index) => `toolu_activate_${turnId}_${index}`);
  return [
    { role: 'user', content: userText },
    {
      role: 'assistant',
      content: activations.map((activation, index) => ({
        type: 'tool_use' as const,
        id: ids[index] as string,
        name: LOAD_SKILL,
        input: { skill_id: activation.skillId },
      })),
    },
    {
      role: 'user',
      content: [
        ...activations.map((activation, index) => ({
          type: 'tool_result' as const,
          tool_use_id: ids[index] as string,
          content: activation.result.content,
          is_error: activation.result.isError,
        })),
        { type: 'text' as const, text: [note, ...activations.flatMap((activation) => activation.notes)].join('\n') },
      ],
    },
  ];
}

/** `/skill <server>:<path>`: run as a local skill is, or refused with a line under the answer naming the id. */
async function explicitServerActivation(deps: TurnActivationDeps, turn: TurnContext, id: string, args: string): Promise<SkillActivation> {
  const found = await personServerSkill(turn, id);
  if (found.ok) return activateSkill(deps, turn, { skill: found.skill, via: 'explicit', args });
  // Said by the bot itself, whatever the model makes of it: the person typed an id and reads why it did not run.
  turn.notice(found.why);
  return { skillId: id, via: 'explicit', result: { content: renderSkillFailure(id, found.status, found.code, found.why), isError: true }, aborted: found.why, notes: [] };
}

async function explicitActivation(
  deps: TurnActivationDeps,
  turn: TurnContext,
  message: IncomingMessage & { skill: { id: string; args: string } },
): Promise<TurnActivation> {
  const { id, args } = message.skill;
  const skill = turn.snapshot.get(id);
  let activation: SkillActivation;
  if (skill && worldAllowsSkill(turn.settings, skill.id) && !skill.userInvocable) {
    // user-invocable: false (Claude Code): the model's to load, never a person's command.
    const reason = `The skill "${id}" is not run by people (user-invocable: false); only the model may load it when it fits.`;
    activation = { skillId: id, via: 'explicit', result: { content: renderSkillFailure(id, 'refused', 'not_user_invocable', reason), isError: true }, aborted: reason, notes: [] };
  } else if (skill && worldAllowsSkill(turn.settings, skill.id)) {
    activation = await activateSkill(deps, turn, { skill, via: 'explicit', args });
  } else if (skill === undefined && isServerSkillId(id)) {
    activation = await explicitServerActivation(deps, turn, id, args);
  } else {
    // Unknown or not allowed here: the very envelope load_skill gives, naming the closest ids.
    const outcome = await loadSkillForTurn(deps, turn, id);
    activation = { skillId: id, via: 'explicit', result: { content: outcome.content, isError: outcome.isError ?? false }, notes: [] };
  }
  const request = args.trim() ? `Use it now for this request: ${args.trim()}` : 'Use it now.';
  const note = activation.aborted
    ? `I asked for the skill "${id}" explicitly, but it could not be activated. Tell me why in a sentence or two.`
    : `I asked for the skill "${id}" explicitly. ${request}`;
  const userText = message.text.trim() || `/skill ${id} ${args}`.trim();
  return { messages: withLoads(userText, turn.turnId, [activation], note), activations: [activation], triggered: [] };
}

function triggerNote(activations: readonly SkillActivation[], matches: readonly TriggerMatch[]): string {
  const phrases = new Map(matches.map((match) => [match.skillId, match.matched]));
  const describe = (activation: SkillActivation): string =>
    `"${activation.skillId}" (matched: ${(phrases.get(activation.skillId) ?? []).map((phrase) => JSON.stringify(phrase)).join(', ')})`;
  const loaded = activations.filter((activation) => !activation.aborted);
  const aborted = activations.filter((activation) => activation.aborted);
  const lines: string[] = [];
  if (loaded.length > 0) {
    lines.push(
      `skillbot loaded ${loaded.map(describe).join(', ')} because my message matched their triggers. ` +
        'Follow their instructions where they fit my request.',
    );
  }
  if (aborted.length > 0) {
    lines.push(
      `${aborted.map(describe).join(', ')} matched my message but could not be activated. ` +
        'Tell me why in a sentence, then help as well as you can without it.',
    );
  }
  return lines.join('\n');
}

/**
 * Activates the skills a message calls for and returns the turn's opening messages. With nothing to
 * activate, the opening is the user's message alone. Never throws for a skill's failure.
 */
export async function activateForTurn(
  deps: TurnActivationDeps,
  turn: TurnContext,
  message: IncomingMessage,
): Promise<TurnActivation> {
  const skillRequest = message.skill;
  if (skillRequest) return explicitActivation(deps, turn, { ...message, skill: skillRequest });
  const plain: TurnActivation = { messages: [{ role: 'user', content: message.text }], activations: [], triggered: [] };
  const matches = matchTriggers(message.text, turn.snapshot.list(), {
    max: deps.config.agent.maxTriggeredSkills,
    accept: (skillId) => worldAllowsSkill(turn.settings, skillId),
  });
  if (matches.length === 0) return plain;

  // Already active: the model can still see its envelope in the history, and the version it saw is current.
  const visible = skillsLoadedInHistory(turn.history);
  const activatedHash = new Map((await activeSkills(deps.store, turn.chatId)).map((entry) => [entry.id, entry.hash]));
  const fresh = matches.filter((match) => {
    const skill = turn.snapshot.get(match.skillId);
    if (!skill) return false;
    const hash = activatedHash.get(skill.id);
    return !(visible.has(skill.id) && (hash === undefined || hash === skill.hash));
  });
  if (fresh.length === 0) return plain;

  const activations: SkillActivation[] = [];
  // One after the other: approvals and hooks keep the order of the matches, which is the activation order.
  for (const match of fresh) {
    const skill = turn.snapshot.get(match.skillId);
    if (skill) activations.push(await activateSkill(deps, turn, { skill, via: 'trigger', matched: match.matched }));
  }
  return { messages: withLoads(message.text, turn.turnId, activations, triggerNote(activations, fresh)), activations, triggered: fresh };
}
