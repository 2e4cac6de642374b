// The content of the fake's streaming calls (chat.startStream / appendStream / stopStream): the chunks Slack
// takes, read in order, and where they land on the message.
import { blocksProblem, MARKDOWN_LIMIT } from './messageContent.ts';
import type { PostedMessage } from './webApi.ts';

/** A task card a stream showed (task_update chunks with the same id update it). */
export interface StreamTask {
  id: string;
  title: string;
  status: 'pending' | 'in_progress' | 'complete' | 'error';
}

const TASK_STATUSES = new Set(['pending', 'in_progress', 'complete', 'error']);

/**
 * A streaming call's content: `markdown_text`, then its chunks in order (JSON-encoded in form bodies): their
 * Markdown joined, the blocks they carry, the task cards they show. A string is the error Slack gives.
 */
export function streamContent(params: Record<string, unknown>): { text: string; blocks: unknown[]; tasks: StreamTask[] } | string {
  let chunks: unknown = params.chunks ?? [];
  if (typeof chunks === 'string') {
    try {
      chunks = JSON.parse(chunks);
    } catch {
      return 'invalid_chunks';
    }
  }
  if (!Array.isArray(chunks)) return 'invalid_chunks';
  let text = typeof params.markdown_text === 'string' ? params.markdown_text : '';
  const blocks: unknown[] = [];
  const tasks: StreamTask[] = [];
  for (const chunk of chunks as Array<Record<string, unknown>>) {
    if (chunk.type === 'markdown_text' && typeof chunk.text === 'string') text += chunk.text;
    else if (chunk.type === 'blocks' && Array.isArray(chunk.blocks) && chunk.blocks.length > 0) blocks.push(...(chunk.blocks as unknown[]));
    else if (chunk.type === 'task_update' && typeof chunk.id === 'string' && typeof chunk.title === 'string' && TASK_STATUSES.has(String(chunk.status))) {
      tasks.push({ id: chunk.id, title: chunk.title, status: chunk.status as StreamTask['status'] });
    } else return 'invalid_chunks';
  }
  if (text.length > MARKDOWN_LIMIT) return 'msg_too_long';
  const problem = blocksProblem(blocks);
  return problem ?? { text, blocks, tasks };
}

/** Streamed content lands at the message's end; a task card with a known id is updated where it stands. */
export function applyStream(message: PostedMessage, content: { text: string; blocks: unknown[]; tasks: StreamTask[] }, append: boolean): void {
  if (append && content.text !== '') message.text += content.text;
  if (content.blocks.length > 0) message.blocks = [...(message.blocks ?? []), ...content.blocks];
  for (const task of content.tasks) {
    const tasks = (message.tasks ??= []);
    const known = tasks.findIndex((candidate) => candidate.id === task.id);
    if (known >= 0) tasks[known] = task;
    else tasks.push(task);
  }
  // Only what changes the message dates a version (a bare stop does not).
  if (append && (content.text !== '' || content.blocks.length > 0 || content.tasks.length > 0)) message.updatedAt = Date.now();
}
