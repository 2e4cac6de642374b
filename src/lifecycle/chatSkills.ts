// Which skills have been activated in a chat, in activation order: the chat's hook registrations. Kept in
// the store ('chats' namespace), so they survive restarts and are shared by every instance. Only the chat's
// turn queue changes them, one turn at a time, so a plain read-modify-write is safe.
import { z } from 'zod';
import type { Store } from '../store/types.ts';

/** How a skill joined the chat: a trigger phrase, `/skill ID`, or the model's own load_skill call. */
export type ActivationVia = 'trigger' | 'explicit' | 'model';

export interface ActiveSkill {
  id: string;
  /** The content hash of the version activated. */
  hash: string;
  /** Epoch ms of the first activation in the chat. */
  at: number;
  via: ActivationVia;
}

const recordSchema = z.object({
  skills: z.array(z.object({ id: z.string(), hash: z.string(), at: z.number(), via: z.enum(['trigger', 'explicit', 'model']) })),
});

function key(chatId: string): string {
  return `active-skills/${chatId}`;
}

/** The chat's active skills, in the order they were first activated. A record of the wrong shape counts as none. */
export async function activeSkills(store: Store, chatId: string): Promise<ActiveSkill[]> {
  const parsed = recordSchema.safeParse(await store.get('chats', key(chatId)));
  return parsed.success ? parsed.data.skills : [];
}

/**
 * Records an activation. A skill activated again (say, after it was edited) keeps its place in the order:
 * hooks run in the order skills first joined the chat.
 */
export async function recordActivation(store: Store, chatId: string, skill: Omit<ActiveSkill, 'at'>, now = Date.now()): Promise<void> {
  const skills = await activeSkills(store, chatId);
  const index = skills.findIndex((entry) => entry.id === skill.id);
  if (index === -1) skills.push({ ...skill, at: now });
  else skills[index] = { ...skill, at: (skills[index] as ActiveSkill).at };
  await store.set('chats', key(chatId), { skills });
}
