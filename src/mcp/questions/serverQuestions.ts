// Where a server's question goes: to the person whose call it is answering. The protocol does not say which call
// a question belongs to (a 2025 server sends it as a request of its own; a 2026-07-28 server answers the call with
// `input_required`), so a connection keeps the calls it is serving; a question is put to their requester when
// they are all one person in one chat, and refused (cancel) when it could be someone else's.
import type { ElicitResult } from '@modelcontextprotocol/client';
import type { Logger } from '../../ops/log.ts';
import type { McpQuestions, QuestionParams } from './questions.ts';
import type { QuestionAsker } from './questionTypes.ts';

/**
 * Puts one server's question to one person and resolves with what the server is to be told: `accept` with the
 * values checked against its schema, `decline`, or `cancel` (the approval timeout, Stop, nowhere to show it).
 * (A long task's `input_required` does not wait in a call: it goes through McpQuestions.post and outcome.)
 */
export function askMcpQuestion(questions: McpQuestions, server: string, params: QuestionParams, asker: QuestionAsker): Promise<ElicitResult> {
  return questions.ask(server, params, asker);
}

/** The handler a connection gives its client for `elicitation/create`. */
export function routeQuestion(questions: McpQuestions, logger: Logger) {
  return (server: string, params: QuestionParams, askers: readonly QuestionAsker[]): Promise<ElicitResult> => {
    const people = new Set(askers.map((asker) => `${asker.chatId}\0${asker.requesterId}`));
    if (askers.length === 0 || people.size > 1) {
      logger.warn({ server, calls: askers.length }, askers.length === 0 ? 'an MCP server asked a question outside any call: cancelled' : 'an MCP server asked a question while serving several people: cancelled (whose it is cannot be told)');
      return Promise.resolve({ action: 'cancel' });
    }
    return askMcpQuestion(questions, server, params, askers[0]!);
  };
}
