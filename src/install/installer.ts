// Installing, updating and removing skills from a chat or the CLI: a plan (fetched, scanned, reviewed) put to
// the world's installers on one card; only a yes commits exactly the reviewed bytes, pinned, to the store,
// from which every instance loads them. Every step is audited. Results are values with the text to show.
import { type Config, worldSettings } from '../config/config.ts';
import type { Executor, HashFolder } from '../exec/types.ts';
import type { Logger } from '../ops/log.ts';
import type { SkillRegistry } from '../skills/registry.ts';
import type { Store } from '../store/types.ts';
import { type ApprovalRuntime, type AuditLog, SYSTEM_DECIDERS } from '../approvals/index.ts';
import { DEFAULT_BOUNDS, type InstallBounds } from './bounds.ts';
import { describeDifference } from './bundle.ts';
import { remoteCommit } from './fetchGit.ts';
import { stagingDirOf, touchStaged } from './leftovers.ts';
import { type InstalledSkill, readBundle } from './installRecords.ts';
import { pinPlan, removeInstalled, updateSourceOf } from './installedChanges.ts';
import { pickAnswer } from './pickAnswer.ts';
import type { InstalledSkills } from './installedSkills.ts';
import { installedListText, visibleIn } from './installedList.ts';
import { type Plan, preparePlan } from './plan.ts';
import { type InstallSource, parseSource, sourceAllowed } from './source.ts';
import { Semaphore } from '../exec/semaphore.ts';
import type { IndexSeal } from './indexSeal.ts';
import { type FetchQuota, fetchQuota } from './fetchQuota.ts';
import { type FetchGuard, fetchGuard } from './sourceAddress.ts';

export interface InstallerDeps {
  config: Config;
  store: Store;
  registry: SkillRegistry;
  /** Who asks the installers (absent on the CLI, where the operator answers at the prompt). */
  approvals?: ApprovalRuntime;
  audit: AuditLog;
  installed: Pick<InstalledSkills, 'list' | 'get' | 'sync'>;
  executor: Executor;
  hashFolder: HashFolder;
  logger: Logger;
  bounds?: Partial<InstallBounds>;
  /** The installed-skills index's MAC (the state key). */
  seal: IndexSeal;
}

/** `ok: false` with `privately`: tell only the person (they may not do this here). */
export interface InstallResult {
  ok: boolean;
  text: string;
  privately?: boolean;
}

export interface Requested {
  worldId: string;
  chatId: string;
  requesterId: string;
  /** The person is at the host's own terminal chat: they answer their own card (they could run `skillbot skills install` there). */
  atHost?: boolean;
}

/** Two fetches at a time per instance (the per-person count per hour is `install.fetchesPerHour`). */
const FETCHES_AT_ONCE = 2;

export class Installer {
  readonly #bounds: InstallBounds;
  readonly #guard: FetchGuard;
  /** Fetches (and unpacks) on this instance at once: each may hold up to the download bound in memory. */
  readonly #fetching = new Semaphore(FETCHES_AT_ONCE);
  readonly #quota: FetchQuota;
  constructor(private readonly deps: InstallerDeps) {
    this.#bounds = { ...DEFAULT_BOUNDS, maxDownloadBytes: deps.config.install.maxMB * 1024 * 1024, ...deps.bounds };
    this.#guard = fetchGuard(deps.config.install.egressAllow, deps.config.install.githubUrl);
    this.#quota = fetchQuota(deps.store, deps.config.install.fetchesPerHour);
  }

  /** Who may answer an install card in this world (and remove its skills): its installers and the operator's admins. */
  installersOf(worldId: string): string[] {
    return [...new Set([...worldSettings(this.deps.config, worldId).installers, ...this.deps.config.admins])];
  }

  parse(text: string): { ok: true; source: InstallSource } | { ok: false; error: string } {
    return parseSource(text, this.deps.config.install.githubUrl);
  }

  /** Fetches, scans and reviews a source; the caller asks (a card, or the CLI's prompt), then commits or discards. */
  async plan(source: InstallSource, options: { scope: string; policy: 'warn' | 'block'; file?: Uint8Array; pick?: readonly string[]; update?: InstalledSkill }): Promise<{ ok: true; plan: Plan } | { ok: false; error: string }> {
    const install = this.deps.config.install;
    if (!install.enabled) return { ok: false, error: 'installing skills is turned off here (install: false)' };
    if (!sourceAllowed(source, install.sources)) return { ok: false, error: `${source.display} is not among the sources this bot may install from (install.sources)` };
    const update = options.update;
    const slot = await this.#fetching.acquire();
    try {
      return await this.#prepare(source, options, update);
    } finally {
      slot?.release();
    }
  }

  #prepare(source: InstallSource, options: Parameters<Installer['plan']>[1], update: InstalledSkill | undefined): ReturnType<Installer['plan']> {
    const install = this.deps.config.install;
    return preparePlan(
      {
        source,
        ...(options.file === undefined ? {} : { file: options.file }),
        scope: options.scope,
        policy: options.policy,
        existing: this.#existing(options.scope),
        ...(options.pick === undefined ? {} : { pick: options.pick }),
        ...(update === undefined
          ? {}
          : {
              update: true,
              describeChanges: async (skill) => {
                const before = await readBundle(this.deps.store, update.contentHash);
                return before === undefined ? ['(the installed version is not in the store: showing everything)'] : describeDifference(before, skill);
              },
            }),
      },
      {
        stagingDir: stagingDirOf(this.deps.config.install.dir),
        bounds: this.#bounds,
        ...(install.policyCommand === undefined ? {} : { policyCommand: install.policyCommand }),
        executor: this.deps.executor,
        hashFolder: this.deps.hashFolder,
        guard: this.#guard,
      },
    );
  }

  /** `/skills install SOURCE [--skill NAME…]` in a chat: plan, card (a collection's offers picks), commit on yes. */
  async install(request: Requested & { source: string; file?: { name: string; bytes: Uint8Array }; pick?: readonly string[] }): Promise<InstallResult> {
    const parsed = request.file !== undefined ? this.parse(`file:${request.file.name}`) : this.parse(request.source);
    if (!parsed.ok) return { ok: false, text: `Cannot install: ${parsed.error}.` };
    const quota = await this.#takeFetch(request);
    if (!quota.ok) return { ok: false, privately: true, text: quota.text };
    // An operator admin installs for every channel (`defaults`); anyone else for this one.
    const scope = this.deps.config.admins.includes(request.requesterId) ? 'defaults' : request.worldId;
    const planned = await this.plan(parsed.source, {
      scope,
      policy: worldSettings(this.deps.config, request.worldId).installPolicy,
      ...(request.file ? { file: request.file.bytes } : {}),
      ...(request.pick === undefined || request.pick.length === 0 ? {} : { pick: request.pick }),
    });
    return this.#decide(request, planned, scope, 'install');
  }

  /** `/skills update ID`: the same source and ref again; the difference on a new card; nothing changes until yes. */
  async update(request: Requested & { id: string }): Promise<InstallResult> {
    const record = this.deps.installed.get(request.id);
    if (record === undefined || !visibleIn(record, request.worldId)) return { ok: false, text: `No installed skill ${request.id} here. \`/skills installed\` lists them.` };
    const source = updateSourceOf(record);
    if (source === undefined) return { ok: false, text: `${request.id} came from the shared file ${record.origin.kind === 'file' ? record.origin.name : record.source}: share the new file with \`/skills install\` to update it.` };
    const quota = await this.#takeFetch(request);
    if (!quota.ok) return { ok: false, privately: true, text: quota.text };
    const planned = await this.plan(source, { scope: record.scope, policy: worldSettings(this.deps.config, request.worldId).installPolicy, pick: [request.id], update: record });
    if (planned.ok && planned.plan.skills[0]?.hash === record.contentHash) {
      await planned.plan.discard();
      return { ok: true, text: `${request.id} is up to date (content ${record.contentHash.slice(0, 12)}${planned.plan.staged.origin.kind === 'git' ? `, commit ${planned.plan.staged.origin.commit.slice(0, 12)}` : ''}).` };
    }
    return this.#decide(request, planned, record.scope, 'update');
  }

  /** `/skills remove ID`: an installer's word is enough (the operator's at the host too); it goes from every instance. */
  async remove(request: Requested & { id: string }): Promise<InstallResult> {
    const atHost = request.atHost === true;
    if (!atHost && !this.installersOf(request.worldId).includes(request.requesterId)) {
      return { ok: false, privately: true, text: "Only this channel's installers can remove installed skills." };
    }
    const record = this.deps.installed.get(request.id);
    if (record === undefined || !visibleIn(record, request.worldId)) return { ok: false, text: `No installed skill ${request.id} here. \`/skills installed\` lists them.` };
    if (!atHost && record.scope === 'defaults' && !this.deps.config.admins.includes(request.requesterId)) {
      return { ok: false, privately: true, text: `${record.id} is installed for every channel: only the operator's admins can remove it.` };
    }
    const removed = await removeInstalled(this.deps.store, this.deps.seal, record);
    if (!removed.ok) return { ok: false, text: `Removing ${request.id} failed: ${removed.error}.` };
    await this.deps.installed.sync();
    await this.#audit(request, record.id, record.contentHash, 'removed', `${record.source}`);
    return { ok: true, text: `Removed ${record.id} (was ${record.source}, content ${record.contentHash.slice(0, 12)}).` };
  }

  /** `/skills installed`: what is installed for this world (its own and every world's), with source and pin. */
  listText(worldId: string): string {
    return installedListText(this.deps.installed.list(), worldId);
  }

  /** Writes the plan's bytes and records, pinned; every instance (this one first) loads them. */
  async commit(plan: Plan, meta: { scope: string; requestedBy: string; approvedBy: string }): Promise<{ ok: true; ids: string[]; note?: string } | { ok: false; error: string }> {
    for (const skill of plan.skills) {
      // The staging folder is the bot's own, but what is committed must be exactly what was reviewed.
      const now = await this.deps.hashFolder(skill.dir);
      if ('error' in now || now.hash !== skill.hash) return { ok: false, error: `the staged files of ${skill.id} changed after the review; nothing installed` };
    }
    const pinned = await pinPlan(this.deps.store, this.deps.seal, plan, meta);
    if (!pinned.ok) return pinned;
    const origin = plan.staged.origin;
    await this.deps.installed.sync();
    let note: string | undefined;
    if (plan.source.kind === 'git' && origin.kind === 'git') {
      const head = await remoteCommit(plan.source, this.#bounds, this.#guard).catch(() => undefined);
      if (head !== undefined && head !== origin.commit) note = `${plan.source.ref ?? 'the default branch'} has moved to ${head.slice(0, 12)} since the review: the reviewed commit ${origin.commit.slice(0, 12)} is what was installed (\`/skills update ID\` reviews the new one).`;
    }
    return { ok: true, ids: pinned.ids, ...(note === undefined ? {} : { note }) };
  }

  async #decide(request: Requested, planned: Awaited<ReturnType<Installer['plan']>>, scope: string, verb: 'install' | 'update'): Promise<InstallResult> {
    if (!planned.ok) {
      await this.#audit(request, '', '', 'refused', planned.error);
      return { ok: false, text: `Cannot ${verb}: ${planned.error}.` };
    }
    let plan = planned.plan;
    const done = verb === 'install' ? 'installed' : 'updated';
    try {
      for (;;) {
        const ids = plan.skills.map((skill) => skill.id);
        const label = ids.length === 1 ? (ids[0] ?? '') : `${ids.length} skills`;
        if (plan.refused !== undefined) {
          await this.#audit(request, label, plan.review.combinedHash, 'refused', plan.refused);
          return { ok: false, text: `Not ${done}: ${plan.refused}.\n${plan.review.body}` };
        }
        // A skill every channel has is the operator's: only their admins decide its changes.
        const answerers = [...(scope === 'defaults' ? this.deps.config.admins : this.installersOf(request.worldId)), ...(request.atHost === true ? [request.requesterId] : [])];
        const approvals = this.deps.approvals;
        if (answerers.length === 0 || approvals === undefined) {
          await this.#audit(request, label, plan.review.combinedHash, 'refused', 'no installers');
          return { ok: false, text: 'Nobody can approve installs in this channel: an operator sets `installers` (or `approvers`) for it in SKILLBOT_CONFIG.' };
        }
        await this.#audit(request, label, plan.review.combinedHash, 'requested', plan.source.display);
        // In use for as long as a card waits: a start of another instance sharing the folder must not sweep it.
        await touchStaged(plan.staged.dir);
        const answer = await approvals.request({
          worldId: request.worldId,
          chatId: request.chatId,
          requesterId: request.requesterId,
          title: `${verb === 'install' ? 'Install' : 'Update'} ${label} from ${plan.source.display}`,
          body: plan.review.body,
          timeoutMs: worldSettings(this.deps.config, request.worldId).approvalTimeoutMs,
          skillId: label,
          skillHash: plan.review.combinedHash,
          items: plan.review.items,
          answerers,
          subject: 'install',
          ...(plan.offered.length > 1 ? { picks: { choices: plan.offered.map((skill) => skill.id), picked: ids } } : {}),
        });
        const authentic = approvals.isAuthentic(answer);
        if (authentic && answer.decidedBy === SYSTEM_DECIDERS.replaced && answer.repicked !== undefined) {
          // Someone picked other skills of the collection: the same fetch, narrowed, on a new card.
          await this.#audit(request, label, plan.review.combinedHash, 'repicked', `${answer.repicked.picked.join(', ')}`, answer.repicked.by);
          plan = await plan.narrow(answer.repicked.picked);
          continue;
        }
        const yes = (answer.option === 'yes_once' || answer.option === 'yes_in_session') && authentic;
        if (!yes) {
          await this.#audit(request, label, plan.review.combinedHash, 'declined', answer.outcome ?? 'no', answer.decidedBy);
          return { ok: false, text: `Not ${done} (${answer.outcome === 'no' ? 'declined' : (answer.outcome ?? 'no answer')}).` };
        }
        const committed = await this.commit(plan, { scope, requestedBy: request.requesterId, approvedBy: answer.decidedBy ?? '' });
        if (!committed.ok) {
          await this.#audit(request, label, plan.review.combinedHash, 'refused', committed.error, answer.decidedBy);
          return { ok: false, text: `Not ${done}: ${committed.error}.` };
        }
        await this.#audit(request, label, plan.review.combinedHash, done, plan.source.display, answer.decidedBy);
        const pin = plan.staged.origin.kind === 'git' ? `commit ${plan.staged.origin.commit.slice(0, 12)}` : `sha256 ${plan.staged.origin.sha256.slice(0, 12)}`;
        return { ok: true, text: `${verb === 'install' ? 'Installed' : 'Updated'} ${committed.ids.join(', ')} from ${plan.source.display} at ${pin}.${committed.note ? `\n${committed.note}` : ''}` };
      }
    } finally {
      await plan.discard();
    }
  }

  /** A pick on a collection's card (on any instance): the card closes, and its asker asks anew for exactly these. */
  async pick(input: { worldId: string; approvalId: string; userId: string; ids: string[] }): Promise<InstallResult> {
    const result = this.deps.approvals === undefined ? ({ kind: 'not_found' } as const) : await this.deps.approvals.replace({ ...input, picked: input.ids });
    return pickAnswer(result);
  }

  /** One of the person's fetches; a world's installers (who answer the cards) and the operator's admins are not counted. */
  #takeFetch(request: Requested): Promise<{ ok: true } | { ok: false; text: string }> {
    if (this.installersOf(request.worldId).includes(request.requesterId)) return Promise.resolve({ ok: true });
    return this.#quota.take(request.requesterId);
  }

  /** The skills a staged one must not shadow: every id the registry has now, except this scope's own installs. */
  #existing(scope: string): Map<string, string> {
    const mine = new Set(this.deps.installed.list().filter((skill) => skill.scope === scope).map((skill) => skill.id));
    const existing = new Map<string, string>();
    for (const skill of this.deps.registry.current().list()) {
      if (mine.has(skill.id)) continue;
      const installed = this.deps.installed.get(skill.id);
      existing.set(skill.id, installed === undefined ? `the skill at ${skill.dir}` : `the skill installed for ${installed.scope === 'defaults' ? 'every channel' : installed.scope}`);
    }
    return existing;
  }

  /** The CLI's audit line (the operator answered at the prompt). */
  audit(request: Requested, skillId: string, hash: string, outcome: string, reason: string, decidedBy?: string): Promise<void> {
    return this.#audit(request, skillId, hash, outcome, reason, decidedBy);
  }

  async #audit(request: Requested, skillId: string, hash: string, outcome: string, reason: string, decidedBy?: string): Promise<void> {
    await this.deps.audit
      .record({ at: Date.now(), kind: 'install', worldId: request.worldId, chatId: request.chatId, skillId, skillHash: hash, items: [], requestedBy: request.requesterId, ...(decidedBy === undefined ? {} : { decidedBy }), outcome, reason })
      .catch((error: unknown) => this.deps.logger.warn({ err: error }, 'install: writing the audit record failed'));
  }
}
