// Parsing the arguments of one `skillbot skills` subcommand: known flags, positionals, and one-line errors
// that say how to fix the call.

export interface ParsedArgs {
  flags: Set<string>;
  positionals: string[];
}

export type ArgsResult = { ok: true; args: ParsedArgs } | { ok: false; error: string };

/** `--` ends the options; `-h`/`--help` is always known. */
export function parseArgs(argv: readonly string[], known: readonly string[], usage: string): ArgsResult {
  const flags = new Set<string>();
  const positionals: string[] = [];
  let optionsEnded = false;
  for (const arg of argv) {
    if (!optionsEnded && arg === '--') optionsEnded = true;
    else if (!optionsEnded && (arg === '-h' || arg === '--help')) flags.add('--help');
    else if (!optionsEnded && arg.startsWith('-') && arg !== '-') {
      if (!known.includes(arg)) {
        const hint = known.length > 0 ? `known options: ${known.join(', ')}` : 'it takes no options';
        return { ok: false, error: `unknown option ${arg} (${hint}). Usage: ${usage}` };
      }
      flags.add(arg);
    } else positionals.push(arg);
  }
  return { ok: true, args: { flags, positionals } };
}
