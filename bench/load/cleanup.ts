// Everything the run started is undone once, in reverse order, whether it passed, failed, threw or was interrupted.
export class Cleanup {
  readonly #steps: Array<{ what: string; undo: () => Promise<void> | void }> = [];
  #ran: Promise<void> | undefined;

  add(what: string, undo: () => Promise<void> | void): void {
    this.#steps.push({ what, undo });
  }

  run(): Promise<void> {
    this.#ran ??= (async () => {
      for (const step of this.#steps.reverse()) {
        try {
          await step.undo();
        } catch (error) {
          console.error(`cleanup: ${step.what} failed: ${error instanceof Error ? error.message : String(error)}`);
        }
      }
    })();
    return this.#ran;
  }
}
