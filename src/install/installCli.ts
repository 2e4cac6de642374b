// `skillbot skills install SOURCE [--skill NAME…] [--world ID] [--yes]`, `installed [--world ID]`, `update ID [--yes]`,
// `remove ID`: the operator on the host. The same fetch, scan and review as in a chat; the operator answers at
// the prompt (or with --yes, for scripts) instead of a card, and the same pinned records reach every instance.
import { userInfo } from 'node:os';
import { createInterface } from 'node:readline/promises';
import { parseArgs } from 'node:util';
import type { Config } from '../config/config.ts';
import type { CommandOutput } from '../ops/commandOutput.ts';
import { silentLogger } from '../ops/log.ts';
import { createAuditLog } from '../approvals/index.ts';
import { loadStateKey } from '../keys/stateKey.ts';
import { executorFromConfig } from '../exec/fromConfig.ts';
import { SkillRegistry } from '../skills/registry.ts';
import { createStore } from '../store/createStore.ts';
import { findingLine } from './findings.ts';
import { indexSeal } from './indexSeal.ts';
import { IndexView } from './installedSkills.ts';
import { Installer } from './installer.ts';
import { namesLocalFile, readLocalPackage } from './localPackage.ts';
import type { InstallSource } from './source.ts';

export const INSTALL_CLI_USAGE = 'skillbot skills install SOURCE|FILE.skill [--skill NAME …] [--world ID] [--yes] | installed [--world ID] | update ID [--yes] | remove ID';

async function confirm(question: string, interactive: boolean): Promise<boolean> {
  if (!interactive) return false;
  const prompt = createInterface({ input: process.stdin, output: process.stdout });
  try {
    return /^y(es)?$/i.test((await prompt.question(question)).trim());
  } finally {
    prompt.close();
  }
}

export async function runInstallCli(sub: string, args: string[], config: Config, host: { output: CommandOutput; interactive: boolean }): Promise<number> {
  const { output } = host;
  let parsed;
  try {
    parsed = parseArgs({ args, allowPositionals: true, options: { world: { type: 'string' }, yes: { type: 'boolean' }, skill: { type: 'string', multiple: true } } });
  } catch (error) {
    output.err(`skillbot skills ${sub}: ${(error as Error).message}. Usage: ${INSTALL_CLI_USAGE}`);
    return 2;
  }
  const [arg, extra] = parsed.positionals;
  if ((sub === 'installed') !== (arg === undefined) || extra !== undefined) {
    output.err(`skillbot skills ${sub}: ${arg === undefined ? 'missing argument' : `unexpected argument "${extra ?? arg}"`}. Usage: ${INSTALL_CLI_USAGE}`);
    return 2;
  }
  const worldId = parsed.values.world;
  const operator = `cli:${userInfo().username}`;
  const logger = silentLogger();
  const store = await createStore(config.storeUrl);
  const registry = await SkillRegistry.open({ roots: [...config.skillsDirs, config.install.dir], logger, watch: false });
  const executor = executorFromConfig(config, logger, { hashFolder: (dir) => registry.hashFolder(dir) });
  const seal = indexSeal(loadStateKey(config).secret);
  const installed = new IndexView(store, seal);
  try {
    await installed.sync();
    const installer = new Installer({ config, store, registry, audit: createAuditLog(store), installed, executor, hashFolder: (dir) => registry.hashFolder(dir), logger, seal });
    const scope = worldId ?? 'defaults';
    const requested = { worldId: scope === 'defaults' ? 'terminal:local' : scope, chatId: 'cli', requesterId: operator };
    switch (sub) {
      case 'installed': {
        const rows = installed.list().filter((skill) => worldId === undefined || skill.scope === worldId || skill.scope === 'defaults');
        if (rows.length === 0) output.out('No skills are installed.');
        for (const skill of rows) {
          const pin = skill.origin.kind === 'git' ? `commit ${skill.origin.commit}` : `sha256 ${skill.origin.sha256}`;
          output.out(`${skill.id}\t${skill.scope}\t${skill.source}\t${pin}\tcontent ${skill.contentHash}\tapproved by ${skill.approvedBy}`);
        }
        return 0;
      }
      case 'remove': {
        const record = installed.get(arg ?? '');
        if (record === undefined) {
          output.err(`skillbot skills remove: no installed skill "${arg}" (see: skillbot skills installed).`);
          return 1;
        }
        const { changeIndex, dropBundle } = await import('./installRecords.ts');
        const changed = await changeIndex(store, seal, (skills) => skills.filter((skill) => skill.id !== record.id));
        if ('error' in changed) {
          output.err(`skillbot skills remove: ${changed.error}`);
          return 1;
        }
        await dropBundle(store, record.contentHash);
        await installer.audit({ ...requested, worldId: record.scope === 'defaults' ? 'terminal:local' : record.scope }, record.id, record.contentHash, 'removed', record.source, operator);
        output.out(`Removed ${record.id} from ${record.scope}.`);
        return 0;
      }
      default: {
        const record = sub === 'update' ? installed.get(arg ?? '') : undefined;
        if (sub === 'update' && (record === undefined || record.origin.kind !== 'git')) {
          output.err(`skillbot skills update: ${record === undefined ? `no installed skill "${arg}"` : `${arg} came from a file; install the new file instead`}.`);
          return 1;
        }
        let resolved: InstallSource;
        let file: Uint8Array | undefined;
        if (record?.origin.kind === 'git') {
          const { url, ref, path } = record.origin;
          resolved = { kind: 'git', url, ...(ref === undefined ? {} : { ref }), ...(path === undefined ? {} : { path }), display: record.source };
        } else if (namesLocalFile(arg ?? '')) {
          // A package on this host (skill-creator's .skill): read here, then the same scan and review as a shared file.
          const local = await readLocalPackage(arg ?? '', config.install.maxMB * 1024 * 1024);
          if (!local.ok) {
            output.err(`skillbot skills install: ${local.error}.`);
            return 1;
          }
          const parsedSource = installer.parse(`file:${local.name}`);
          if (!parsedSource.ok) {
            output.err(`skillbot skills install: ${parsedSource.error}.`);
            return 2;
          }
          resolved = parsedSource.source;
          file = local.bytes;
        } else {
          const parsedSource = installer.parse(arg ?? '');
          if (!parsedSource.ok) {
            output.err(`skillbot skills install: ${parsedSource.error}.`);
            return 2;
          }
          resolved = parsedSource.source;
        }
        const targetScope = record?.scope ?? scope;
        const picks = (parsed.values.skill ?? []).flatMap((names) => names.split(',')).filter((name) => name !== '');
        const pick = record ? [record.id] : picks.length > 0 ? picks : undefined;
        const planned = await installer.plan(resolved, { scope: targetScope, policy: 'warn', ...(file === undefined ? {} : { file }), ...(pick === undefined ? {} : { pick }), ...(record ? { update: record } : {}) });
        if (!planned.ok) {
          output.err(`skillbot skills ${sub}: ${planned.error}`);
          return 1;
        }
        const { plan } = planned;
        try {
          output.out(plan.review.body);
          if (plan.refused !== undefined) {
            output.err(`Not installed: ${plan.refused}.`);
            return 1;
          }
          const dangers = plan.findings.filter((finding) => finding.severity === 'danger');
          for (const finding of dangers) output.err(findingLine(finding));
          const yes = parsed.values.yes === true || (await confirm(`${sub === 'update' ? 'Update' : 'Install'} into ${targetScope}? [y/N] `, host.interactive));
          if (!yes) {
            // Piped or scripted, nobody could be asked: say how to say yes.
            output.out(host.interactive ? 'Nothing installed.' : `Nothing installed: nobody can answer the prompt here (stdin is not a terminal). Pass --yes to ${sub === 'update' ? 'update to' : 'install'} exactly what the review above shows.`);
            return 1;
          }
          const committed = await installer.commit(plan, { scope: targetScope, requestedBy: operator, approvedBy: operator });
          if (!committed.ok) {
            output.err(`Not installed: ${committed.error}.`);
            return 1;
          }
          await installer.audit(requested, committed.ids.join(','), plan.review.combinedHash, sub === 'update' ? 'updated' : 'installed', resolved.display, operator);
          output.out(`${sub === 'update' ? 'Updated' : 'Installed'} ${committed.ids.join(', ')} into ${targetScope}.${committed.note ? ` ${committed.note}` : ''}`);
          return 0;
        } finally {
          await plan.discard();
        }
      }
    }
  } finally {
    executor.close();
    await registry.close();
    await store.close();
  }
}
