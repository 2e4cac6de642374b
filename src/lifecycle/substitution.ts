// `{{preflight.NAME}}` in a skill's body, replaced by the output of the step NAME (inject: variable).

// The placeholder form skill validation accepts (src/skills/extensions.ts).
const PLACEHOLDER = /\{\{\s*preflight\.([^\s}]*)\s*\}\}/g;

/**
 * Replaces every placeholder in one pass over the body. A value is inserted as it is: it is never scanned
 * again, so output holding `{{preflight.X}}` (or `$&`, or markup) stays literal text. Placeholders without a
 * value are left as written.
 */
export function substitutePreflightVariables(body: string, values: ReadonlyMap<string, string>): string {
  return body.replace(PLACEHOLDER, (placeholder, name: string) => values.get(name) ?? placeholder);
}

// Claude Code's argument placeholders, for `/skill ID args`: `$ARGUMENTS` (the words as typed),
// `$ARGUMENTS[N]` and `$N` (the Nth word, from 0, split shell-style with quotes removed).
const ARGUMENT_PLACEHOLDER = /\$ARGUMENTS\[(\d+)\]|\$ARGUMENTS\b|\$(\d+)(?!\w|\.\d)/g;

/** The words of `args` as a shell splits them: whitespace separates, '…' and "…" group, the quotes go. */
export function splitArguments(args: string): string[] {
  const words: string[] = [];
  let word: string | undefined;
  let quote: '"' | "'" | undefined;
  for (let i = 0; i < args.length; i += 1) {
    const char = args[i] as string;
    if (quote !== undefined) {
      if (char === quote) quote = undefined;
      else if (char === '\\' && quote === '"' && (args[i + 1] === '"' || args[i + 1] === '\\')) word = (word ?? '') + args[++i];
      else word = (word ?? '') + char;
    } else if (char === '"' || char === "'") {
      quote = char;
      word ??= '';
    } else if (/\s/.test(char)) {
      if (word !== undefined) words.push(word);
      word = undefined;
    } else word = (word ?? '') + char;
  }
  if (word !== undefined) words.push(word);
  return words;
}

/**
 * The body of a skill run with `/skill ID args`, as Claude Code builds it: placeholders replaced in one pass
 * (a value is never scanned again), and `ARGUMENTS: args` appended when the body names no placeholder and
 * words were given. A `$N` past the last word stays as written (Claude Code leaves it); `$ARGUMENTS[N]`
 * past the last word becomes empty.
 */
export function substituteArguments(body: string, args: string): string {
  const typed = args.trim();
  const words = splitArguments(typed);
  let named = false;
  const replaced = body.replace(ARGUMENT_PLACEHOLDER, (placeholder, indexed: string | undefined, short: string | undefined) => {
    if (short !== undefined) {
      const word = words[Number(short)];
      if (word === undefined) return placeholder;
      named = true;
      return word;
    }
    named = true;
    return indexed !== undefined ? (words[Number(indexed)] ?? '') : typed;
  });
  if (named || typed === '') return replaced;
  return `${replaced.replace(/\s+$/, '')}\n\nARGUMENTS: ${typed}\n`;
}
