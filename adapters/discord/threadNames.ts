// A new thread's name, and what the person reads when one cannot be opened: shared by messages and installs.

export const NO_THREAD_TEXT = 'I could not open a thread here. I need the "Create Public Threads" and "Send Messages in Threads" permissions in this channel.';

/** A thread's name from the message's first line, mentions taken out, at most 80 characters. */
export function threadName(text: string, fallback: string): string {
  const line = (text.split('\n').find((candidate) => candidate.trim() !== '') ?? '').replace(/<[@#][!&]?\d+>/g, '').replace(/\s+/g, ' ').trim();
  const name = line.length > 80 ? `${line.slice(0, 79)}…` : line;
  return name || fallback;
}
