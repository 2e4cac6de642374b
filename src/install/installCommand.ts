// The words after `/skills` (Slack's text, Discord's options, a mention in a thread): what people ask of installs.

export type InstallCommand =
  | { kind: 'install'; source: string }
  | { kind: 'installed' }
  | { kind: 'update'; id: string }
  | { kind: 'remove'; id: string }
  | { kind: 'usage'; text: string };

export const INSTALL_USAGE =
  'Usage: `/skills install SOURCE` (github:owner/repo[/path][@ref], https://…[.git][#ref][:path], or share a .skill file in a thread and mention me with `skills install`), `/skills installed`, `/skills update ID`, `/skills remove ID`.';

/** Undefined: not an install command (plain `/skills` lists skills). */
export function parseInstallCommand(text: string): InstallCommand | undefined {
  const words = text.trim().split(/\s+/).filter((word) => word !== '');
  const [verb, arg, extra] = words;
  switch (verb?.toLowerCase()) {
    case 'install':
      return extra === undefined ? { kind: 'install', source: arg ?? '' } : { kind: 'usage', text: INSTALL_USAGE };
    case 'installed':
      return arg === undefined ? { kind: 'installed' } : { kind: 'usage', text: INSTALL_USAGE };
    case 'update':
    case 'remove':
      return arg === undefined || extra !== undefined ? { kind: 'usage', text: INSTALL_USAGE } : { kind: verb.toLowerCase() as 'update' | 'remove', id: arg };
    default:
      return undefined;
  }
}
