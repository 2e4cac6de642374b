// What a turn shows before its answer (progress, streamed text, files), held back once its message was taken over.

/**
 * A run that outlived its chat lease (its instance starved of CPU, taken for dead, the message re-run elsewhere)
 * must not write its progress or its streamed answer over the message the other run answered in. Whatever the turn
 * shows goes out at once while this run's claim was confirmed its own within `freshMs`; after a longer gap (a stall
 * is such a gap) it waits for a fresh look at the claim, and is dropped for good once the claim is another's. A
 * look that fails (the store away) lets it through: nobody takes a message over without the store either.
 */
export class ReplyGate {
  #confirmedAt = performance.now();
  #lost = false;
  #checking = false;
  #held: Array<{ at: number; show: () => void }> = [];

  constructor(
    private readonly holds: () => Promise<boolean>,
    private readonly freshMs = 500,
  ) {}

  /** True once the claim was found to be another run's. */
  get lost(): boolean {
    return this.#lost;
  }

  /** Runs `show` now, after a fresh look at the claim, or never (in order with the others). */
  show(show: () => void): void {
    if (this.#lost) return;
    const at = performance.now();
    if (this.#held.length === 0 && at - this.#confirmedAt < this.freshMs) return show();
    this.#held.push({ at, show });
    this.#look();
  }

  /** Resolves with whether the claim is still this run's, after a fresh look (for a file, which is posted). */
  async confirm(): Promise<boolean> {
    if (this.#lost) return false;
    const mine = await this.holds().catch(() => true);
    if (!mine) this.#lose();
    return mine;
  }

  #look(): void {
    if (this.#checking) return;
    this.#checking = true;
    const started = performance.now();
    void this.holds()
      .catch(() => true)
      .then((mine) => {
        this.#checking = false;
        if (!mine) return this.#lose();
        this.#confirmedAt = started;
        // Only what came before the look began is vouched for by it; the rest waits for the next look.
        const ready = this.#held.filter((entry) => entry.at <= started);
        this.#held = this.#held.filter((entry) => entry.at > started);
        for (const entry of ready) entry.show();
        if (this.#held.length > 0) this.#look();
      });
  }

  #lose(): void {
    this.#lost = true;
    this.#held = [];
  }
}
