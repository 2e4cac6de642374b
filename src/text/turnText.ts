// The texts a turn wrote, as the platforms show them: the rounds the model wrote before its tool calls lead the
// answer in one text, and a message still being written previews its latest words.

/** The rounds of a turn (texts before tool calls, then the last), blank ones left out, as one text. */
export function joinRounds(rounds: readonly string[]): string {
  return rounds.filter((text) => text.trim() !== '').join('\n\n');
}

/** The last `chars` characters of a long text, marked as cut at the front. */
export function tailOf(text: string, chars: number): string {
  return text.length > chars ? `…${text.slice(-chars)}` : text;
}
