// Changes to what is installed that the chats' commands and the CLI make the same way: taking one installed skill
// away (its record, and its bundle once nothing else pins the same content), and where an update fetches from.
import type { Store } from '../store/types.ts';
import type { IndexSeal } from './indexSeal.ts';
import { bundleOf } from './bundle.ts';
import { changeIndex, dropBundle, type InstalledSkill, writeBundle } from './installRecords.ts';
import type { Plan } from './plan.ts';
import type { InstallSource } from './source.ts';

/** Removes the (id, scope) record; the bundle goes too when no other record pins its content. */
export async function removeInstalled(store: Store, seal: IndexSeal, record: InstalledSkill): Promise<{ ok: true } | { ok: false; error: string }> {
  const changed = await changeIndex(store, seal, (skills) => skills.filter((skill) => !(skill.id === record.id && skill.scope === record.scope)));
  if ('error' in changed) return { ok: false, error: changed.error };
  if (!changed.skills.some((skill) => skill.contentHash === record.contentHash)) await dropBundle(store, record.contentHash);
  return { ok: true };
}

/** The same repository, path and ref again; a skill from a shared file has none (its update is a new file). */
export function updateSourceOf(record: InstalledSkill): InstallSource | undefined {
  if (record.origin.kind !== 'git') return undefined;
  const { url, ref, path } = record.origin;
  return { kind: 'git', url, ...(ref === undefined ? {} : { ref }), ...(path === undefined ? {} : { path }), display: record.source };
}

/** Writes the reviewed bundles and pins their records for `scope` (replacing that scope's own; refusing another's). */
export async function pinPlan(store: Store, seal: IndexSeal, plan: Plan, meta: { scope: string; requestedBy: string; approvedBy: string }): Promise<{ ok: true; ids: string[] } | { ok: false; error: string }> {
    for (const skill of plan.skills) await writeBundle(store, await bundleOf(skill));
    const origin = plan.staged.origin;
    const path = plan.source.kind === 'git' ? plan.source.path : undefined;
    const records: InstalledSkill[] = plan.skills.map((skill) => ({
      id: skill.id,
      scope: meta.scope,
      source: plan.source.display,
      origin: origin.kind === 'git' ? { kind: 'git', url: origin.url, ...(origin.ref === undefined ? {} : { ref: origin.ref }), ...(path === undefined ? {} : { path }), commit: origin.commit } : { kind: 'file', name: origin.name, sha256: origin.sha256 },
      folder: skill.folder,
      contentHash: skill.hash,
      files: skill.files.length,
      bytes: skill.files.reduce((sum, file) => sum + file.size, 0),
      requestedBy: meta.requestedBy,
      approvedBy: meta.approvedBy,
      installedAt: Date.now(),
    }));
    const replaced: string[] = [];
    const changed = await changeIndex(store, seal, (skills) => {
      for (const record of records) {
        const other = skills.find((skill) => skill.id === record.id && skill.scope !== record.scope);
        if (other !== undefined) return { error: `${record.id} is already installed for ${other.scope === 'defaults' ? 'every channel' : other.scope}` };
      }
      const ids = new Set(records.map((record) => record.id));
      for (const skill of skills) if (ids.has(skill.id)) replaced.push(skill.contentHash);
      return [...skills.filter((skill) => !ids.has(skill.id)), ...records].sort((a, b) => (a.id < b.id ? -1 : 1));
    });
    if ('error' in changed) return { ok: false, error: changed.error };
    for (const hash of replaced) if (!changed.skills.some((skill) => skill.contentHash === hash)) await dropBundle(store, hash);
  return { ok: true, ids: records.map((record) => record.id) };
}
