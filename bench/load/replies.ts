// The end state of every thread in the fake Slack, read as a person would: which messages got a final reply
// (and how many), what was posted twice or taken back, and bot messages left showing something other than an answer.
import { TURN_STOP_ACTION_ID } from '../../adapters/slack/turnControls.ts';
import { PLACEHOLDER_TEXT } from '../../adapters/slack/turnSink.ts';
import type { FakeSlack, PostedMessage } from '../../tests/fakes/slack.ts';
import { parseFinalReply, textsIn } from './markers.ts';

export interface ThreadState {
  /** Final replies per marker, in the messages' final state. */
  finals: Map<string, number>;
  /**
   * Texts (a message's answer, or the sentence written before its tool call) that more than one bot message ever
   * held, deleted messages included: each should have exactly one.
   */
  postedTwice: number;
  postedTwiceExamples: string[];
  /** Bot messages deleted that had held a message's text (not a placeholder or progress line). */
  deletedTexts: number;
  /** User messages whose texts (answer, sentences before tool calls) more than one bot message ever held: each should have one. */
  morePosts: number;
  morePostsExamples: string[];
  /** Bot messages deleted, whatever they held (a placeholder too): a person saw each, then did not. */
  deletedMessages: number;
  /** chat.postMessage calls repeating an earlier post's text and blocks in the same thread (placeholders aside). */
  duplicatePosts: number;
  duplicateExamples: string[];
  /** Bot messages still showing the placeholder, a preview, a progress line or a Stop button (a turn that never finished there). */
  leftOver: number;
  leftOverExamples: string[];
  /** Bot messages with other text (apologies and the like). */
  otherReplies: Map<string, number>;
}

function str(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

/** A bot message in a thread that is not an approval question (those carry `hitl_` buttons, or did). */
function isTurnMessage(message: PostedMessage): boolean {
  return message.threadTs !== undefined && !JSON.stringify(message.blocks ?? []).includes('hitl_');
}

export function readThreads(slack: FakeSlack): ThreadState {
  const finals = new Map<string, number>();
  const otherReplies = new Map<string, number>();
  let leftOver = 0;
  const leftOverExamples: string[] = [];
  for (const message of slack.messages) {
    // Approval questions aside; the placeholder carries blocks too (its Stop button) and is judged by its text.
    if (!isTurnMessage(message)) continue;
    const final = parseFinalReply(message.text);
    if (final) {
      finals.set(final.marker, (finals.get(final.marker) ?? 0) + 1);
    } else if (message.text === PLACEHOLDER_TEXT || message.text.endsWith(' …') || /^_.*_$/s.test(message.text) || message.stream === 'streaming' || JSON.stringify(message.blocks ?? []).includes(TURN_STOP_ACTION_ID)) {
      leftOver += 1;
      if (leftOverExamples.length < 5) leftOverExamples.push(`${message.channel}/${message.threadTs}: ${message.text.slice(0, 60)}`);
    } else {
      otherReplies.set(message.text.slice(0, 80), (otherReplies.get(message.text.slice(0, 80)) ?? 0) + 1);
    }
  }
  const posted = new Map<string, number>();
  let duplicatePosts = 0;
  const duplicateExamples: string[] = [];
  for (const call of slack.calls) {
    if (call.method !== 'chat.postMessage' || !call.ok || str(call.params.text) === PLACEHOLDER_TEXT) continue;
    const key = `${str(call.params.channel)}/${str(call.params.thread_ts)} ${str(call.params.text)} ${str(call.params.blocks)}`;
    const seen = posted.get(key) ?? 0;
    posted.set(key, seen + 1);
    if (seen > 0) {
      duplicatePosts += 1;
      if (duplicateExamples.length < 5) duplicateExamples.push(key.slice(0, 120));
    }
  }
  const holders = new Map<string, number>();
  const postsOf = new Map<string, number>();
  let deletedTexts = 0;
  for (const message of [...slack.messages, ...slack.deleted]) {
    const held = new Set<string>();
    const markers = new Set<string>();
    for (const version of [...message.edits.map((edit) => edit.text), message.text]) {
      for (const { marker, kind } of textsIn(version)) {
        held.add(`${kind} of ${marker}`);
        markers.add(marker);
      }
    }
    for (const key of held) holders.set(key, (holders.get(key) ?? 0) + 1);
    for (const marker of markers) postsOf.set(marker, (postsOf.get(marker) ?? 0) + 1);
    if (held.size > 0 && slack.deleted.includes(message)) deletedTexts += 1;
  }
  const twice = [...holders].filter(([, count]) => count > 1);
  const morePosts = [...postsOf].filter(([, count]) => count > 1);
  return {
    finals,
    postedTwice: twice.length,
    postedTwiceExamples: twice.slice(0, 5).map(([key, count]) => `${key}: ${count} messages`),
    deletedTexts,
    morePosts: morePosts.length,
    morePostsExamples: morePosts.slice(0, 5).map(([marker, count]) => `${marker}: ${count} messages`),
    deletedMessages: slack.deleted.filter(isTurnMessage).length,
    duplicatePosts,
    duplicateExamples,
    leftOver,
    leftOverExamples,
    otherReplies,
  };
}
