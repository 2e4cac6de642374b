// `/skills install|installed|update|remove` as people give it in a chat: one runner and its wording for Slack,
// Discord and the terminal. A platform gives the place the command was given in (answer privately, post, open a
// thread for the review, fetch a shared file); the Installer does the rest (fetch, scan, review card, pin).
import { splitMessage, type SplitProfile } from '../text/splitMessage.ts';
import type { MessageFile } from '../platform/port.ts';
import type { InstallCommand } from './installCommand.ts';
import type { Installer } from './installer.ts';
import { namesLocalFile, readLocalPackage } from './localPackage.ts';

export interface InstallPlace {
  worldId: string;
  userId: string;
  /** The chat the command was given in (a thread, the terminal's session); undefined: a channel. */
  chatId?: string;
  /** Files that came with the command (a mention in a thread with a .skill attached). */
  files?: readonly MessageFile[];
  /** Only the person sees it. */
  replyPrivately(text: string): Promise<void>;
  /** Everyone sees it: in `chatId`'s thread, or where the command was given when undefined. */
  post(text: string, chatId: string | undefined): Promise<void>;
  /**
   * The chat the review goes to: in a channel, `note` posted where the command was given with a thread opened on
   * it; in a thread, that thread (a platform may post `note` there too). Undefined when it could not (the place
   * told the person).
   */
  startReview(note: string): Promise<string | undefined>;
  /** A shared file's bytes, at most `maxBytes` (one more tells it was too large). */
  fetchFile(file: MessageFile, maxBytes: number): Promise<Uint8Array>;
  /** The platform's message size and markup, for long results (a whole review). */
  profile: SplitProfile;
  /** Text the platform shows literally (Slack escapes &, <, >); as it is when absent. */
  literal?(text: string): string;
  /** The person at the host's keyboard (the terminal): may name a `.skill` file on this computer. */
  atHost?: boolean;
}

export type ChatInstaller = Pick<Installer, 'install' | 'update' | 'remove' | 'listText'>;

const NO_SOURCE_TEXT = 'Name a source, or share a .skill file in a thread and mention me with `skills install`.';

const mention = (userId: string) => `<@${userId}>`;

/** Runs one command to its end; what people see goes through the place. */
export async function runInstallCommand(installer: ChatInstaller, place: InstallPlace, command: InstallCommand, maxBytes: number): Promise<void> {
  const literal = place.literal ?? ((text: string) => text);
  if (command.kind === 'usage') return place.replyPrivately(command.text);
  if (command.kind === 'installed') return place.replyPrivately(literal(installer.listText(place.worldId)));
  if (command.kind === 'remove') {
    const removed = await installer.remove({ worldId: place.worldId, chatId: place.chatId ?? `${place.worldId}/-`, requesterId: place.userId, id: command.id });
    if (removed.privately === true || !removed.ok) return place.replyPrivately(literal(removed.text));
    return place.post(`${literal(removed.text)} (by ${mention(place.userId)})`, place.chatId);
  }
  const shared = command.kind === 'install' ? place.files?.find((file) => /\.(skill|zip)$/i.test(file.name)) : undefined;
  if (command.kind === 'install' && command.source === '' && shared === undefined) return place.replyPrivately(literal(NO_SOURCE_TEXT));
  const picked = command.kind === 'install' && command.pick.length > 0 ? ` (only ${command.pick.map((name) => `\`${literal(name)}\``).join(', ')})` : '';
  const what = command.kind === 'update' ? `an update of \`${literal(command.id)}\`` : `installing \`${literal(shared?.name ?? command.source)}\`${picked}`;
  const chatId = await place.startReview(`${mention(place.userId)} asked for ${what}: fetching and scanning it; the review follows in this thread.`);
  if (chatId === undefined) return;
  const requested = { worldId: place.worldId, chatId, requesterId: place.userId, ...(place.atHost === true ? { atHost: true } : {}) };
  let file: { name: string; bytes: Uint8Array } | undefined;
  if (shared !== undefined) {
    try {
      file = { name: shared.name, bytes: await place.fetchFile(shared, maxBytes) };
    } catch (error) {
      return place.post(`I could not download ${literal(shared.name)} (${literal((error as Error).message)}).`, chatId);
    }
  }
  if (command.kind === 'install' && place.atHost === true && namesLocalFile(command.source)) {
    const local = await readLocalPackage(command.source, maxBytes);
    if (!local.ok) return place.post(`Cannot install: ${local.error}.`, chatId);
    file = { name: local.name, bytes: local.bytes };
  }
  const result =
    command.kind === 'update'
      ? await installer.update({ ...requested, id: command.id })
      : await installer.install({ ...requested, source: file === undefined ? command.source : '', pick: command.pick, ...(file ? { file } : {}) });
  for (const part of splitMessage(literal(result.text), place.profile)) await place.post(part, chatId);
}
