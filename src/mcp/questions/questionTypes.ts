// What a server's question (elicitation) is to the core and to the platforms that show it.
import type { Encrypted } from '../../keys/sealing.ts';
import type { RequestedSchema } from './questionForm.ts';

export type QuestionAction = 'accept' | 'decline' | 'cancel';

/** The record kept in the store ('mcp' namespace, `question:<id>`), so any instance can take its answer. */
export interface McpQuestion {
  id: string;
  status: 'pending' | 'answered';
  mode: 'form' | 'url';
  server: string;
  /** The server's message, hidden characters removed. */
  message: string;
  /** Form questions: what the server asked for. */
  schema?: RequestedSchema;
  /** URL questions: where the person is sent (shown to them alone, never fetched by the bot), and its host. */
  url?: string;
  host?: string;
  worldId: string;
  chatId: string;
  requesterId: string;
  turnId?: string;
  createdAt: number;
  /** Unanswered by then = cancel (the approval timeout). */
  deadline: number;
  /** Set by the platform that showed it (Slack channel+ts, Discord message id). */
  platformRef?: string;
  action?: QuestionAction;
  /**
   * The values given (accept), sealed with the state key: they pass through the store only to reach the instance
   * whose call waits, and may be secret (a password), so a copy of the store never shows them.
   */
  sealedContent?: Encrypted;
  /** Who answered, or `system:timeout` / `system:stopped`. */
  decidedBy?: string;
}

/** Who a question goes to: the turn (or task) whose call the server is answering. */
export interface QuestionAsker {
  worldId: string;
  chatId: string;
  requesterId: string;
  turnId?: string;
  /** The approval timeout: unanswered by then, the server is told cancel. */
  timeoutMs: number;
  /** The turn's Stop: the server is told cancel. */
  signal?: AbortSignal;
  /** Told when a question opens (true) and is answered (false): the call's own timeout pauses meanwhile. */
  onQuestion?(open: boolean): void;
}

/** A platform that shows questions in its worlds. */
export interface QuestionPresenter {
  /** A form: a card in the thread; a URL: a note to the requester alone. May return a reference kept on the record. */
  present(question: McpQuestion): Promise<string | undefined>;
  /** The question was answered (or cancelled, or timed out): the card's buttons go, the outcome shows. */
  resolved(question: McpQuestion): Promise<void>;
}

/** What a person's click or submission did; the platform turns it into a reply only they see. */
export type AnswerResult =
  | { kind: 'answered'; question: McpQuestion }
  | { kind: 'not_found' }
  | { kind: 'already_answered'; question: McpQuestion }
  | { kind: 'not_allowed'; text: string }
  | { kind: 'invalid'; why: string };
