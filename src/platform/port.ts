// The small interface between the core and a platform adapter (Slack, Discord, terminal).

/**
 * A file that came with a message, as the inbox keeps it: what is needed to fetch it again on whichever instance
 * runs the turn (through that platform's port, with its credentials). The bytes are never stored.
 */
export interface MessageFile {
  /** The platform's id of the file (a Slack file id, a Discord attachment id). */
  id: string;
  name: string;
  /** As the platform reports it; empty when unknown. */
  mimeType: string;
  size: number;
  url: string;
}

/** A file a skill script made, for the platform to post in the chat. */
export interface OutgoingFile {
  name: string;
  bytes: Uint8Array;
  /** One line shown with the file (which skill made it). */
  title: string;
}

/** One message of the conversation the bot was brought into, as the platform shows it. */
export interface ContextMessage {
  /** The author's display name. */
  author: string;
  /** `self`: the bot's own earlier message; `bot`: another bot or app. */
  authorKind: 'person' | 'bot' | 'self';
  /** The author's platform id (a person's): context from people a world refuses is left out. */
  userId?: string;
  /** Epoch milliseconds. */
  at: number;
  text: string;
}

export interface ContextRequest {
  /** The chat has history: only what people wrote since the bot's last reply is wanted. */
  joined: boolean;
  /** At most this many messages, the newest. */
  limit: number;
}

/** A user message as an adapter hands it to the core. */
export interface IncomingMessage {
  worldId: string;
  chatId: string;
  /** Platform user id of the author; approvals default to this person. */
  userId: string;
  text: string;
  /** `/skill ID [args]`: run this skill explicitly (it always wins over triggers). */
  skill?: { id: string; args: string };
  /** Files attached to the message, in the order the person attached them. */
  files?: MessageFile[];
  /** The platform's id of the message (Slack ts, Discord message id): context is read from before it. */
  ref?: string;
  /** A turn no person's message started: a routine's run, a follow-up, a webhook delivery (src/routines). */
  origin?: { kind: 'routine' | 'followup' | 'hook'; id: string };
}

/** Where one turn's progress and answer go. The adapter makes one per turn. */
export interface TurnSink {
  /** A working state ("Loading skill x…"); adapters show it as a status or an updated placeholder. */
  progress(text: string): Promise<void> | void;
  /** Streamed answer text, for surfaces that can show it as it comes. */
  partial?(delta: string): void;
  /** The model call is being retried: streamed text so far is void. */
  retrying?(reason: string): void;
  /** The final answer of the turn, in Markdown. Called exactly once per turn (unless `stopped` is). */
  reply(markdown: string): Promise<void>;
  /**
   * The turn was stopped by `userId`: say "Stopped by @person." the platform's way, instead of `reply`.
   * Without it the core replies with the plain user id.
   */
  stopped?(userId: string): Promise<void>;
  /** Posts a file in the chat (after a script made it). Without it, files cannot be delivered on this surface. */
  upload?(file: OutgoingFile): Promise<void>;
}

/**
 * A platform as the durable queue sees it: any instance must be able to answer any chat of the platform from the
 * chat id alone (a Slack thread, a Discord thread), because the turn may run far from where the message came in.
 * The terminal is the exception: its chats are answered by the process showing them (`answers`).
 */
export interface PlatformPort {
  /** `turnId` is the same for every re-run of one message: a port may use it to reuse what a first run posted. */
  sinkFor(message: IncomingMessage, turnId: string): TurnSink;
  /**
   * Whether this instance can answer the chat. Slack and Discord can answer any of theirs (no method); the terminal
   * only the session it shows, so a chat of another terminal process on the same store is left to that one.
   */
  answers?(chatId: string): boolean;
  /** Downloads a file of a message (with the platform's credentials). Throws when it cannot. */
  fetchFile?(file: MessageFile): Promise<Uint8Array>;
  /**
   * What was said before the message where it was said (the thread, or the channel when the message asks about
   * "the above"), oldest first; empty when there is nothing to add. Throws when the platform cannot be read.
   */
  readContext?(message: IncomingMessage, request: ContextRequest): Promise<ContextMessage[]>;
  /**
   * Tells one person something only they see, where the chat is (an MCP sign-in link): Slack an ephemeral
   * message in the thread, Discord a direct message, the terminal prints it. Throws when it cannot.
   */
  tellPrivately?(chatId: string, userId: string, text: string): Promise<void>;
  /**
   * Asks one person, in the chat, to connect their own account to an MCP server, where a link can reach them alone
   * only in answer to their own click (Discord: a message naming them with a Connect button; the click is answered
   * ephemerally with the link the core kept, `SignIns.pendingLink`). Without it the link goes by `tellPrivately`.
   */
  askToConnect?(chatId: string, userId: string, server: string): Promise<void>;
  /**
   * Posts a new root message in a world's channel and returns the chat id of its thread (a routine's run, a
   * webhook's home). Slack: chat.postMessage; Discord: a channel message and a thread on it. Throws when it cannot.
   */
  postRoot?(worldId: string, text: string): Promise<string>;
  /** Posts a plain note in a chat's thread (a run skipped while every instance was down). Throws when it cannot. */
  postNote?(chatId: string, text: string): Promise<void>;
  /** A direct message to one person (the operator's `admins`: budget alerts). Throws when it cannot. */
  directMessage?(userId: string, text: string): Promise<void>;
}

/** What a turn may ask of the platform it runs for. */
export type TurnPlatform = Pick<PlatformPort, 'fetchFile' | 'readContext' | 'tellPrivately' | 'askToConnect' | 'directMessage'>;
