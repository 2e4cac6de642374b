// Resolves a skill's script to a real file inside the skill folder, refusing anything that points elsewhere.
import { constants, realpathSync, statSync } from 'node:fs';
import path from 'node:path';

export type ContainedScript =
  | { ok: true; skillDir: string; scriptPath: string; executable: boolean }
  | { ok: false; reason: string };

/** Refuses a script path by its words alone: absolute, `..`, empty. */
export function checkScriptPath(script: string): string | undefined {
  if (script.trim() === '') return 'the script path is empty';
  if (path.isAbsolute(script) || script.startsWith('\\')) return `the script path "${script}" is absolute`;
  if (script.split(/[\\/]/).includes('..')) return `the script path "${script}" climbs out with ".."`;
  return undefined;
}

/**
 * Resolves realpaths of the folder and the script, then checks that the script lies inside the folder. Call it
 * right before spawning, and spawn the returned real path, so a symlink swapped in earlier cannot lead out.
 */
export async function containScript(skillDir: string, script: string): Promise<ContainedScript> {
  const refused = checkScriptPath(script);
  if (refused !== undefined) return { ok: false, reason: refused };

  const realDir = realpathOrUndefined(skillDir);
  if (realDir === undefined) return { ok: false, reason: `the skill folder "${skillDir}" does not exist` };
  const realScript = realpathOrUndefined(path.join(realDir, script));
  if (realScript === undefined) return { ok: false, reason: `the script "${script}" does not exist in the skill folder` };

  const relative = path.relative(realDir, realScript);
  if (relative === '' || relative === '..' || relative.startsWith(`..${path.sep}`) || path.isAbsolute(relative)) {
    return { ok: false, reason: `the script "${script}" resolves outside the skill folder` };
  }
  const info = statOrUndefined(realScript);
  if (info === undefined) return { ok: false, reason: `the script "${script}" vanished while being checked` };
  if (!info.isFile()) return { ok: false, reason: `the script "${script}" is not a regular file` };
  const executable = (info.mode & (constants.S_IXUSR | constants.S_IXGRP | constants.S_IXOTH)) !== 0;
  return { ok: true, skillDir: realDir, scriptPath: realScript, executable };
}

// Synchronous: a few local syscalls on every run, cheaper than a thread-pool round trip each.
function realpathOrUndefined(target: string): string | undefined {
  try {
    return realpathSync(target);
  } catch {
    return undefined;
  }
}

function statOrUndefined(target: string) {
  try {
    return statSync(target);
  } catch {
    return undefined;
  }
}
