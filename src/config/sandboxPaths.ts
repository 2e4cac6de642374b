// Where things are inside the sandbox: the public contract (docs/contract.md), the same for every chat, so
// scripts, skill authors, the model's instructions and tests outside the project can name them. A leaf module:
// exec mounts these paths, the envelope and the system prompt name them.

export const SANDBOX_PATHS = {
  /** The chat's workspace: the working directory of every run of the chat, and SKILLBOT_INPUT_DIR. */
  workspace: '/workspace',
  /** SKILLBOT_OUTPUT_DIR: what a run leaves here is uploaded to the thread (and stays in the workspace). */
  outputs: '/workspace/outputs',
  /** Skills are at /skills/<id>: the verified copy at the approved hash, read-only. */
  skills: '/skills',
  home: '/home/sandbox',
  tmp: '/tmp',
} as const;

/**
 * The name skill `id` is mounted under: its id, or for a server's skill (`releases:release-notes/draft`, issue 38)
 * `releases.release-notes.draft`, since a mount is one plain name. Server names and server skills' path segments
 * hold no dot and local ids are lowercase letters, digits and hyphens, so no two skills share a mount name.
 */
export const skillMountName = (id: string): string => id.replace(':', '.').replaceAll('/', '.');

/** Where skill `id` is inside the sandbox. */
export const skillPathInside = (id: string): string => `${SANDBOX_PATHS.skills}/${skillMountName(id)}`;

/**
 * PATH inside: the system folders only (the bot's own PATH may name folders the sandbox does not have). /usr/bin
 * comes first: a separately built /usr/local/bin/python3 (as in python:3 images) does not see Debian's python3-*
 * modules, while Debian's /usr/bin/python3 sees those and pip's /usr/local ones alike.
 */
export const SANDBOX_PATH = '/usr/bin:/bin:/usr/local/bin:/usr/sbin:/sbin:/usr/local/sbin:/opt/skillbot/bin';

/** Where the sandbox puts the program aliases below (last on its PATH, so a host's own program always wins). */
export const ALIAS_DIR = '/opt/skillbot/bin';

/**
 * Names skills written for Claude Code call that a Debian host may lack: `python` (macOS and most images have
 * it; Debian only with python-is-python3). Inside the sandbox each is a link to its target when the host has the
 * target but not the name.
 */
export const PROGRAM_ALIASES: Readonly<Record<string, string>> = { python: 'python3' };
