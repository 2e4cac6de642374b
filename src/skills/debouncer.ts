// Trailing debounce with a ceiling: a burst of file events becomes one reload, and a steady stream of
// events still reloads at least every `maxWaitMs`.

export class Debouncer {
  private timer: NodeJS.Timeout | undefined;
  private firstPokeAt = 0;

  constructor(
    private readonly delayMs: number,
    private readonly maxWaitMs: number,
    private readonly fire: () => void,
  ) {}

  poke(): void {
    const now = Date.now();
    if (this.timer === undefined) this.firstPokeAt = now;
    else clearTimeout(this.timer);
    const wait = Math.max(0, Math.min(this.delayMs, this.firstPokeAt + this.maxWaitMs - now));
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.fire();
    }, wait);
    // A pending reload never keeps the process alive.
    this.timer.unref();
  }

  cancel(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
  }
}
