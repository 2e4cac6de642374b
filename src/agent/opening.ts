import type { MessageParam } from '@anthropic-ai/sdk/resources/messages';
import { activateForTurn, type TurnActivationDeps } from './turnActivation.ts';
import type { IncomingMessage } from '../platform/port.ts';
import type { TurnContext } from './turnContext.ts';

/**
 * The messages that open a turn. `/skill ID args` and messages that match a skill's triggers are turned into
 * a runtime-made load_skill exchange (preflight run, hooks fired), so the model spends no round trip and skill
 * content still enters only as a tool result. Otherwise the opening is the user's message alone.
 */
export async function turnOpening(
  deps: TurnActivationDeps,
  turn: TurnContext,
  message: IncomingMessage,
): Promise<MessageParam[]> {
  const activation = await activateForTurn(deps, turn, message);
  if (activation.triggered.length > 0) {
    deps.logger.info(
      {
        chatId: turn.chatId,
        turnId: turn.turnId,
        triggered: activation.triggered.map((match) => ({ skill: match.skillId, score: match.score, matched: match.matched })),
      },
      'message triggered skills',
    );
  }
  return activation.messages;
}
