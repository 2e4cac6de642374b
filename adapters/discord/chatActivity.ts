// Whether the bot posted something else into a chat (an approval question) while a turn was running.
export interface ActivityWatch {
  readonly changed: boolean;
  stop(): void;
}

/**
 * Lets a turn's answer know whether it may replace the turn's status message in place: not when an approval
 * question was posted below it meanwhile, since the answer would then appear above the question.
 */
export class ChatActivity {
  readonly #watches = new Map<string, Set<{ changed: boolean }>>();

  posted(chatId: string): void {
    for (const watch of this.#watches.get(chatId) ?? []) watch.changed = true;
  }

  watch(chatId: string): ActivityWatch {
    const state = { changed: false };
    const set = this.#watches.get(chatId) ?? new Set();
    set.add(state);
    this.#watches.set(chatId, set);
    return {
      get changed() {
        return state.changed;
      },
      stop: () => {
        set.delete(state);
        if (set.size === 0 && this.#watches.get(chatId) === set) this.#watches.delete(chatId);
      },
    };
  }
}
