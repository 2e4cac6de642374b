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
import { Installer, type Requested } from './installer.ts';
import { updateSourceOf } from './installedChanges.ts';
import type { Plan } from './plan.ts';
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
  const parsed = parseInstallArgs(sub, args, output);
  if (parsed === undefined) return 2;
  const [arg] = parsed.positionals;
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
      case 'installed':
        return listInstalled(installed, worldId, output);
      case 'remove':
        return await removeFromHost(installer, installed, arg ?? '', operator, output);
      default: {
        const record = sub === 'update' ? installed.get(arg ?? '') : undefined;
        if (sub === 'update' && (record === undefined || record.origin.kind !== 'git')) {
          output.err(`skillbot skills update: ${record === undefined ? `no installed skill "${arg}"` : `${arg} came from a file; install the new file instead`}.`);
          return 1;
        }
        let resolved: InstallSource;
        let file: Uint8Array | undefined;
        const again = record === undefined ? undefined : updateSourceOf(record);
        if (again !== undefined) {
          resolved = again;
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
        try {
          return await reviewAndCommit(installer, planned.plan, { sub, targetScope, operator, requested, display: resolved.display, yes: parsed.values.yes === true }, host);
        } finally {
          await planned.plan.discard();
        }
      }
    }
  } finally {
    executor.close();
    await registry.close();
    await store.close();
  }
}

/** Prints the review, asks the operator (or takes --yes), and pins what was reviewed. */
async function reviewAndCommit(
  installer: Installer,
  plan: Plan,
  ask: { sub: string; targetScope: string; operator: string; requested: Requested; display: string; yes: boolean },
  host: { output: CommandOutput; interactive: boolean },
): Promise<number> {
  const { output } = host;
  output.out(plan.review.body);
  if (plan.refused !== undefined) {
    output.err(`Not installed: ${plan.refused}.`);
    return 1;
  }
  const dangers = plan.findings.filter((finding) => finding.severity === 'danger');
  for (const finding of dangers) output.err(findingLine(finding));
  const yes = ask.yes || (await confirm(`${ask.sub === 'update' ? 'Update' : 'Install'} into ${ask.targetScope}? [y/N] `, host.interactive));
  if (!yes) {
    // Piped or scripted, nobody could be asked: say how to say yes.
    output.out(host.interactive ? 'Nothing installed.' : `Nothing installed: nobody can answer the prompt here (stdin is not a terminal). Pass --yes to ${ask.sub === 'update' ? 'update to' : 'install'} exactly what the review above shows.`);
    return 1;
  }
  const committed = await installer.commit(plan, { scope: ask.targetScope, requestedBy: ask.operator, approvedBy: ask.operator });
  if (!committed.ok) {
    output.err(`Not installed: ${committed.error}.`);
    return 1;
  }
  await installer.audit(ask.requested, committed.ids.join(','), plan.review.combinedHash, ask.sub === 'update' ? 'updated' : 'installed', ask.display, ask.operator);
  output.out(`${ask.sub === 'update' ? 'Updated' : 'Installed'} ${committed.ids.join(', ')} into ${ask.targetScope}.${committed.note ? ` ${committed.note}` : ''}`);
  return 0;
}

/** `skillbot skills remove ID`: the Installer's own remove, the operator at the host allowed in every scope. */
async function removeFromHost(installer: Installer, installed: IndexView, id: string, operator: string, output: CommandOutput): Promise<number> {
  const record = installed.get(id);
  if (record === undefined) {
    output.err(`skillbot skills remove: no installed skill "${id}" (see: skillbot skills installed).`);
    return 1;
  }
  const removed = await installer.remove({ worldId: record.scope === 'defaults' ? 'terminal:local' : record.scope, chatId: 'cli', requesterId: operator, id, atHost: true });
  if (!removed.ok) {
    output.err(`skillbot skills remove: ${removed.text}`);
    return 1;
  }
  output.out(`Removed ${record.id} from ${record.scope}.`);
  return 0;
}

/** `skillbot skills installed [--world ID]`: one line a skill (id, scope, source, pin, content, approver). */
function listInstalled(installed: IndexView, worldId: string | undefined, output: CommandOutput): number {
  const rows = installed.list().filter((skill) => worldId === undefined || skill.scope === worldId || skill.scope === 'defaults');
  if (rows.length === 0) output.out('No skills are installed.');
  for (const skill of rows) {
    const pin = skill.origin.kind === 'git' ? `commit ${skill.origin.commit}` : `sha256 ${skill.origin.sha256}`;
    output.out(`${skill.id}\t${skill.scope}\t${skill.source}\t${pin}\tcontent ${skill.contentHash}\tapproved by ${skill.approvedBy}`);
  }
  return 0;
}

/** The command's words, or undefined (said on stderr: a usage error) when they do not fit it. */
function parseInstallArgs(sub: string, args: string[], output: CommandOutput) {
  let parsed;
  try {
    parsed = parseArgs({ args, allowPositionals: true, options: { world: { type: 'string' }, yes: { type: 'boolean' }, skill: { type: 'string', multiple: true } } });
  } catch (error) {
    output.err(`skillbot skills ${sub}: ${(error as Error).message}. Usage: ${INSTALL_CLI_USAGE}`);
    return undefined;
  }
  const [arg, extra] = parsed.positionals;
  if ((sub === 'installed') !== (arg === undefined) || extra !== undefined) {
    output.err(`skillbot skills ${sub}: ${arg === undefined ? 'missing argument' : `unexpected argument "${extra ?? arg}"`}. Usage: ${INSTALL_CLI_USAGE}`);
    return undefined;
  }
  return parsed;
}
