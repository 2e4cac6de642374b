// The words after `/skills` (Slack's text, Discord's options, a mention in a thread): what people ask of installs.

export type InstallCommand =
  | { kind: 'install'; source: string; /** `--skill NAME` (repeated, or `a,b`): only these of a collection. */ pick: string[] }
  | { kind: 'installed' }
  | { kind: 'update'; id: string }
  | { kind: 'remove'; id: string }
  | { kind: 'usage'; text: string };

export const INSTALL_USAGE =
  'Usage: `/skills install SOURCE [--skill NAME …]` (github:owner/repo[/path][@ref], https://…[.git][#ref][:path], or share a .skill file in a thread and mention me with `skills install`; `--skill` picks skills of a collection), `/skills installed`, `/skills update ID`, `/skills remove ID`.';

/** `--skill a --skill b`, `--skill=a,b`: the names, or undefined when a flag is malformed or unknown. */
export function splitPicks(words: readonly string[]): { rest: string[]; pick: string[] } | undefined {
  const rest: string[] = [];
  const pick: string[] = [];
  for (let i = 0; i < words.length; i += 1) {
    const word = words[i] ?? '';
    if (!word.startsWith('--')) {
      rest.push(word);
      continue;
    }
    const [flag, inline] = word.split(/=(.*)/s, 2);
    if (flag !== '--skill') return undefined;
    const value = inline ?? words[(i += 1)];
    if (value === undefined || value === '' || value.startsWith('--')) return undefined;
    pick.push(...value.split(',').filter((name) => name !== ''));
  }
  return { rest, pick };
}

/** Undefined: not an install command (plain `/skills` lists skills). */
export function parseInstallCommand(text: string): InstallCommand | undefined {
  const words = text.trim().split(/\s+/).filter((word) => word !== '');
  const [verb, arg, extra] = words;
  switch (verb?.toLowerCase()) {
    case 'install': {
      const split = splitPicks(words.slice(1));
      if (split === undefined || split.rest.length > 1) return { kind: 'usage', text: INSTALL_USAGE };
      return { kind: 'install', source: split.rest[0] ?? '', pick: split.pick };
    }
    case 'installed':
      return arg === undefined ? { kind: 'installed' } : { kind: 'usage', text: INSTALL_USAGE };
    case 'update':
    case 'remove':
      return arg === undefined || extra !== undefined ? { kind: 'usage', text: INSTALL_USAGE } : { kind: verb.toLowerCase() as 'update' | 'remove', id: arg };
    default:
      return undefined;
  }
}
