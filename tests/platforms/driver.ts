// What a platform driver offers the contract: a platform as a person uses it. Each driver speaks its platform's
// real protocol through the fakes and reads the result back from the fake's record; docs/testing.md says how
// to add one.
import type { FakeAnthropic } from '../fakes/anthropic.ts';

export type Person = 'alice' | 'bob';
export type Option = 'yes_once' | 'yes_in_session' | 'no';

/** How the contract wants the bot started; the driver adds its platform's credentials. */
export interface BotSetup {
  /** SKILLS_DIRS. */
  skillsDirs: string;
  /** A store that outlives `restart`. */
  storeUrl: string;
  /** Settings every platform runs the contract with (file bounds, timeouts). */
  env: Record<string, string>;
}

/** A file a person attaches to a message. */
export interface SentFile {
  name: string;
  type: string;
  bytes: Buffer | string;
}

/** A file the bot posted into a conversation. */
export interface PostedFile {
  name: string;
  text: string;
  /** What the person reads beside it (a title, a message). */
  caption: string;
}

export interface PlatformDriver {
  /** Starts the fake platform and the bot. */
  start(anthropic: FakeAnthropic, setup: BotSetup): Promise<void>;
  /** Stops the bot the way `skillbot start` does on SIGTERM, and starts a new one on the same store. */
  restart(): Promise<void>;
  stop(): Promise<void>;
  /** `person` mentions the bot in a channel, with files if given: a conversation starts (in a thread). */
  mention(person: Person, text: string, files?: SentFile[]): Promise<Conversation>;
}

export interface Conversation {
  /** `person` writes in the conversation: without a mention unless asked. */
  say(person: Person, text: string, options?: { mention?: boolean }): Promise<void>;
  /** The platform delivers the conversation's last message again (a retry, a replay). */
  deliverAgain(): Promise<void>;
  /** Waits for an answer of the bot that reads `text` (or matches it), and returns it. */
  waitForAnswer(text: string | RegExp): Promise<string>;
  /** The bot's answers so far, oldest first (not its progress, approval questions or "Stopped by" notes). */
  answers(): string[];
  /**
   * How many of the bot's messages in the conversation ever showed `text`, at any point of their life (messages
   * deleted since included): a text shown once is held by one message.
   */
  messagesThatHeld(text: string): number;
  /** How many messages the bot posted in the conversation and deleted since: a turn posts nothing it takes back. */
  messagesDeleted(): number;
  /** Waits for the next approval question the bot asks in the conversation. */
  waitForQuestion(): Promise<Question>;
  /** Waits for the running turn's Stop button, and `person` clicks it. */
  clickStop(person: Person): Promise<void>;
  /** Whether a Stop button shows in the conversation. */
  hasStopButton(): boolean;
  /** Waits for the note that `person` stopped the turn ("Stopped by @person."). */
  waitForStopped(person: Person): Promise<void>;
  /** Waits for a note only `person` sees, reading `text` (or matching it), that no earlier wait has taken. */
  waitForPrivateNote(person: Person, text: string | RegExp): Promise<void>;
  /**
   * Waits until `person` is asked to connect their own account to the MCP server `server`, does what the platform
   * asks of them to see the link (Discord: clicks the Connect button in the conversation), and returns the note
   * holding the link, which only they see.
   */
  signInNote(person: Person, server: string): Promise<string>;
  /** The files the bot posted in the conversation, oldest first. */
  uploadedFiles(): PostedFile[];
}

export interface Question {
  /** What the person sees. */
  text(): string;
  /** Whether it still offers its buttons. */
  isOpen(): boolean;
  click(person: Person, option: Option): Promise<void>;
}
