// The small interface between the core and a platform adapter (Slack, Discord, terminal).

/** A user message as an adapter hands it to the core. */
export interface IncomingMessage {
  worldId: string;
  chatId: string;
  /** Platform user id of the author; approvals default to this person. */
  userId: string;
  text: string;
  /** `/skill ID [args]`: run this skill explicitly (it always wins over triggers). */
  skill?: { id: string; args: string };
}

/** Where one turn's progress and answer go. The adapter makes one per turn. */
export interface TurnSink {
  /** A working state ("Loading skill x…"); adapters show it as a status or an updated placeholder. */
  progress(text: string): Promise<void> | void;
  /** Streamed answer text, for surfaces that can show it as it comes. */
  partial?(delta: string): void;
  /** The model call is being retried: streamed text so far is void. */
  retrying?(reason: string): void;
  /** The final answer of the turn, in Markdown. Called exactly once per turn. */
  reply(markdown: string): Promise<void>;
}

/**
 * A platform as the durable queue sees it: any instance must be able to answer any chat of the platform from the
 * chat id alone (a Slack thread, a Discord thread), because the turn may run far from where the message came in.
 */
export interface PlatformPort {
  /** `turnId` is the same for every re-run of one message: a port may use it to reuse what a first run posted. */
  sinkFor(message: IncomingMessage, turnId: string): TurnSink;
}
