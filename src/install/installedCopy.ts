// The installed skills as the bot serves them, for the host's own commands (`skills list|show|catalog|match`,
// `doctor`): written from the store's pinned bundles into a temporary folder (checked against their pins, as an
// instance does), read as the registry's last root, removed after. A running bot's INSTALLED_SKILLS_DIR is its own
// cache and may be stale or absent here; the store is the truth.
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Config } from '../config/config.ts';
import { silentLogger } from '../ops/log.ts';
import { FolderScanner } from '../skills/folderScanner.ts';
import { parseStoreUrl } from '../config/storeUrl.ts';
import { loadStateKey } from '../keys/stateKey.ts';
import { indexSeal } from './indexSeal.ts';
import { incomingDirOf } from './leftovers.ts';
import type { InstalledSkill } from './installRecords.ts';
import { InstalledSkills } from './installedSkills.ts';

export interface InstalledCopy {
  /** The folder holding them (a skill root), when any is installed. */
  dir?: string;
  skills: readonly InstalledSkill[];
  /** Why they could not be read (the store unreachable): said once, the command goes on without them. */
  problem?: string;
}

/** Where a skill installed for `scope` is offered, for people reading a list. */
export function installedNote(skill: InstalledSkill): string {
  return `installed for ${skill.scope === 'defaults' ? 'every channel' : skill.scope} from ${skill.source}`;
}

export async function withInstalledCopy<T>(config: Config, use: (copy: InstalledCopy) => Promise<T>): Promise<T> {
  const location = parseStoreUrl(config.storeUrl);
  // No store file yet: nothing was ever installed, and a listing must not create one.
  if (location.kind === 'memory' || (location.kind === 'sqlite' && !existsSync(location.path))) return use({ skills: [] });
  let store;
  try {
    // Imported here: a listing with no store file never loads the store's drivers.
    const { createStore } = await import('../store/createStore.ts');
    store = await createStore(config.storeUrl);
  } catch (error) {
    return use({ skills: [], problem: `installed skills not shown: the store cannot be opened (${(error as Error).message.split('\n')[0]})` });
  }
  const dir = await mkdtemp(join(tmpdir(), 'skillbot-installed-'));
  const scanner = new FolderScanner();
  try {
    await InstalledSkills.prepare(dir);
    // The index is checked as an instance checks it (sealed with the state key): one that fails is not shown.
    let ignored: string | undefined;
    const installed = new InstalledSkills({
      store,
      dir,
      hashFolder: (folder) => scanner.hashFolder(folder),
      reload: async () => {},
      logger: silentLogger(),
      seal: indexSeal(loadStateKey(config).secret),
      onIgnored: async (_revision, why) => void (ignored = why),
    });
    await installed.sync();
    await installed.close();
    const skills = installed.list();
    const problem = ignored === undefined ? {} : { problem: `installed skills not shown: the store's index of them failed its check (${ignored})` };
    return await use(skills.length === 0 ? { skills, ...problem } : { dir, skills, ...problem });
  } finally {
    await scanner.close();
    await store.close();
    await rm(dir, { recursive: true, force: true });
    await rm(incomingDirOf(dir), { recursive: true, force: true });
  }
}
