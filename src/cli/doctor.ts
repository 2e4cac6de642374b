// `skillbot doctor`: one line per check (sandbox, store, state key, model, platform credentials, skills, what the
// skills' code needs from the host); exit 1 when one fails.
import type { CommandOutput } from '../ops/commandOutput.ts';
import { type Config, platformCredentialProblems } from '../config/config.ts';
import { modelCheck } from '../model/modelCheck.ts';
import type { Check } from '../ops/check.ts';
import { executorFromConfig } from '../exec/fromConfig.ts';
import type { BoundsMode } from '../exec/runCgroup.ts';
import { stateKeyCheck } from '../keys/stateKey.ts';
import { silentLogger } from '../ops/log.ts';
import { HostView, missingOnHost, scanSkillDependencies, shortMissing } from '../skills/dependencies/index.ts';
import { validateFolders, type FolderValidation } from '../skills/validateFolders.ts';
import { createStore, redactStoreUrl } from '../store/createStore.ts';
import type { InstalledCopy } from '../install/installedCopy.ts';


const SLACK_API = 'https://slack.com/api';
const DISCORD_API = 'https://discord.com/api';
const REQUEST_TIMEOUT_MS = 10_000;

export interface DoctorDeps {
  output: CommandOutput;
  /** Plain fetch (the core imports no platform SDK); tests use the real one against loopback fakes. */
  fetch?: typeof fetch;
  /** Vertex only: a google-auth-library AuthClient instead of Application Default Credentials (tests). */
  vertexAuthClient?: unknown;
}

export async function runDoctor(config: Config, deps: DoctorDeps): Promise<number> {
  const http = deps.fetch ?? fetch;
  const checks: Check[] = [...(await sandbox(config)), ...init(process.pid), await store(config), stateKey(config), await modelCheck(config, deps.vertexAuthClient)];
  for (const problem of platformCredentialProblems(config)) {
    checks.push({ verdict: 'FAIL', name: problem.startsWith('DISCORD') ? 'discord' : 'slack', text: problem });
  }
  if (config.slack.botToken !== undefined) checks.push(await slack(config.slack.apiUrl ?? SLACK_API, config.slack.botToken, http));
  if (config.discord.token !== undefined) checks.push(await discord(config.discord.apiUrl ?? DISCORD_API, config.discord.token, http));
  // The skills installed from a chat or the CLI are checked as the bot serves them: from the store, at their pins.
  const { withInstalledCopy } = await import('../install/installedCopy.ts');
  const localIds = new Set<string>();
  await withInstalledCopy(config, async (installed) => {
    const validation = await validateFolders(installed.dir === undefined ? config.skillsDirs : [...config.skillsDirs, installed.dir], 'runtime');
    for (const skill of validation.skills) if (skill.valid) localIds.add(skill.id);
    checks.push(skills(config, validation, installed), await dependencies(validation), await mcpNeeds(config, validation));
  });
  if (config.mcp.servers.length > 0) checks.push(...(await mcpServers(config, localIds)));
  for (const check of checks) deps.output.out(`${check.verdict.padEnd(4)}  ${check.name}: ${check.text}`);
  return checks.some((check) => check.verdict === 'FAIL') ? 1 : 0;
}

/** Skills whose instructions call MCP tools of servers no world offers: a warning, the catalog is unchanged. */
async function mcpNeeds(config: Config, result: FolderValidation): Promise<Check> {
  const { missingServers, offeredServers } = await import('../mcp/skillNeeds.ts');
  const offered = offeredServers(config);
  const lacking: string[] = [];
  for (const skill of result.skills.filter((entry) => entry.valid)) {
    const missing = await missingServers(skill.path, offered);
    if (missing !== undefined) lacking.push(`${skill.id}: ${missing}`);
  }
  if (lacking.length === 0) return { verdict: 'ok', name: 'mcp needs', text: 'every MCP server the skills name is offered by a world (or none is named)' };
  return { verdict: 'warn', name: 'mcp needs', text: lacking.join('; ') };
}

/** One line per MCP server: reached as the bot would reach it (src/mcp/commands.ts). */
async function mcpServers(config: Config, localIds: ReadonlySet<string>): Promise<Check[]> {
  const [{ probeServers, serverChecks }, { loadStateKey }] = await Promise.all([import('../mcp/commands.ts'), import('../keys/stateKey.ts')]);
  const storeOf = await createStore(config.storeUrl).catch(() => undefined);
  if (storeOf === undefined) return [{ verdict: 'FAIL', name: 'mcp', text: 'the store cannot be opened, so the MCP servers were not checked' }];
  try {
    return serverChecks(await probeServers(config, storeOf, loadStateKey(config).secret), localIds);
  } finally {
    await storeOf.close();
  }
}

async function sandbox(config: Config): Promise<Check[]> {
  const status = await executorFromConfig(config, silentLogger()).sandbox();
  if (status.mode === 'off') return [{ verdict: 'warn', name: 'sandbox', text: 'SCRIPT_SANDBOX=off: skill scripts run unsandboxed as the bot' }];
  if (!status.usable) return [{ verdict: 'FAIL', name: 'sandbox', text: `bwrap is unusable (${status.problem}); every skill script is refused. Fix: ${status.fix}` }];
  return [
    { verdict: 'ok', name: 'sandbox', text: `bwrap; ${status.isolates.join('; ')}` },
    status.network === undefined
      ? { verdict: 'ok', name: 'network', text: "skills a world lists reach public addresses only, through the bot's egress proxy; never the host or its private networks" }
      : { verdict: 'FAIL', name: 'network', text: `networked skills are refused: ${status.network.problem}. Fix: ${status.network.fix}` },
    boundsCheck(config, status.bounds),
  ];
}

/** Which mode bounds memory and processes, and what each run is then guaranteed (docs/security.md#bounds). */
function boundsCheck(config: Config, bounds: BoundsMode): Check {
  const mib = (bytes: number) => `${Math.round(bytes / (1024 * 1024))} MiB`;
  const { limits } = config.sandbox;
  const mounts = `HOME ${mib(limits.homeBytes)}, /tmp ${mib(limits.tmpBytes)}, /dev/shm ${mib(limits.shmBytes)} (sized tmpfs)`;
  if (bounds.kind === 'cgroup') {
    return {
      verdict: 'ok',
      name: 'bounds',
      text: `cgroup mode (v${bounds.version}): each run as a whole holds at most ${mib(limits.memoryBytes)} of memory, its ${mounts} included, and ${limits.maxProcesses} processes`,
    };
  }
  return {
    verdict: 'warn',
    name: 'bounds',
    text:
      `rlimits mode (${bounds.why}): ${mib(limits.memoryBytes)} of memory per process, not per run; ${limits.maxProcesses} processes per run as root ` +
      `(its own uid), shared with the bot's user otherwise; ${mounts} on top. A delegated cgroup v2 tree (or, as root, writable cgroup v1 memory and pids hierarchies) bounds the whole run; see docs/security.md#bounds`,
  };
}

/** As PID 1 the bot is the reaper of every orphan in its container; an init (docker run --init) does that better. */
function init(pid: number): Check[] {
  if (pid !== 1) return [];
  return [
    {
      verdict: 'warn',
      name: 'init',
      text: 'the bot runs as PID 1 without an init: start the container with --init (docker run --init, tini, dumb-init) so every exited process is reaped; see docs/security.md',
    },
  ];
}

/** Several instances must share one key: without it, each ignores the others' grants and answers. */
function stateKey(config: Config): Check {
  const { ok, line } = stateKeyCheck(config);
  return { verdict: ok ? 'ok' : 'FAIL', name: 'state key', text: line.replace(/^state key: /, '') };
}

async function store(config: Config): Promise<Check> {
  // STORE_URL may hold a password: never printed.
  const where = `STORE_URL ${redactStoreUrl(config.storeUrl)}`;
  try {
    const opened = await createStore(config.storeUrl);
    try {
      const reachable = await opened.ping();
      return reachable
        ? { verdict: 'ok', name: 'store', text: `${opened.kind} reachable` }
        : { verdict: 'FAIL', name: 'store', text: `${where} does not answer` };
    } finally {
      await opened.close();
    }
  } catch (error) {
    return { verdict: 'FAIL', name: 'store', text: `${where} cannot be opened (${(error as Error).message.split('\n')[0]})` };
  }
}

async function slack(apiUrl: string, token: string, http: typeof fetch): Promise<Check> {
  const name = 'slack';
  try {
    const response = await http(`${apiUrl}/auth.test`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/x-www-form-urlencoded' },
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    });
    const body = (await response.json().catch(() => ({}))) as { ok?: boolean; error?: string; team?: string; user?: string };
    if (body.ok === true) return { verdict: 'ok', name, text: `SLACK_BOT_TOKEN accepted (team ${body.team ?? '?'}, bot user ${body.user ?? '?'})` };
    return { verdict: 'FAIL', name, text: `auth.test refused SLACK_BOT_TOKEN (${body.error ?? `HTTP ${response.status}`})` };
  } catch (error) {
    return { verdict: 'FAIL', name, text: `${apiUrl} cannot be reached (${(error as Error).message})` };
  }
}

async function discord(apiUrl: string, token: string, http: typeof fetch): Promise<Check> {
  const name = 'discord';
  try {
    const response = await http(`${apiUrl}/v10/users/@me`, {
      headers: { authorization: `Bot ${token}` },
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    });
    const body = (await response.json().catch(() => ({}))) as { username?: string; message?: string };
    if (response.ok) return { verdict: 'ok', name, text: `DISCORD_TOKEN accepted (bot ${body.username ?? '?'})` };
    return { verdict: 'FAIL', name, text: `GET /users/@me refused DISCORD_TOKEN (HTTP ${response.status}${body.message ? `: ${body.message}` : ''})` };
  } catch (error) {
    return { verdict: 'FAIL', name, text: `${apiUrl} cannot be reached (${(error as Error).message})` };
  }
}

function skills(config: Config, result: FolderValidation, installed: InstalledCopy): Check {
  const plugins = result.rootProblems;
  const invalid = result.skills.filter((skill) => !skill.valid);
  const problems = [
    ...result.unreadable.map((dir) => `${dir} cannot be read`),
    ...invalid.map((skill) => `${skill.id}: ${skill.errors[0]?.message ?? 'invalid'}`),
    ...plugins,
  ];
  if (problems.length > 0) {
    const counted = invalid.length > 0 || plugins.length === 0 ? `${invalid.length} of ${result.skills.length} invalid; ` : '';
    return { verdict: 'FAIL', name: 'skills', text: `${counted}${problems.join('; ')} (details: skillbot skills validate)` };
  }
  // What loads: one skill per id, the earlier root winning a name clash (as the registry does); the others are named.
  const winners = new Map<string, string>();
  const shadowed: string[] = [];
  for (const skill of result.skills) {
    const winner = winners.get(skill.id);
    if (winner === undefined) winners.set(skill.id, skill.path);
    else shadowed.push(`${skill.id} at ${skill.path} (shadowed by ${winner})`);
  }
  const clash = shadowed.length === 0 ? '' : `; ${shadowed.length} shadowed by an earlier one of the same name: ${shadowed.join(', ')}`;
  const fromStore = installed.skills.map((skill) => `${skill.id} for ${skill.scope === 'defaults' ? 'every channel' : skill.scope}`);
  const onDisk = winners.size - installed.skills.filter((skill) => winners.has(skill.id)).length;
  const more = fromStore.length === 0 ? '' : `, and ${fromStore.length} installed from the store (${fromStore.join(', ')})`;
  if (installed.problem !== undefined) return { verdict: 'warn', name: 'skills', text: `${onDisk} load from ${config.skillsDirs.join(':')}${clash}; ${installed.problem}` };
  return { verdict: 'ok', name: 'skills', text: `${onDisk} load from ${config.skillsDirs.join(':')}${more}${clash}` };
}

/** A static scan of the valid skills' code: a missing program or module is a warning, never a failure. */
async function dependencies(result: FolderValidation): Promise<Check> {
  const host = new HostView();
  const lacking: string[] = [];
  const short = new Set<string>();
  let mentioned = 0;
  const valid = result.skills.filter((skill) => skill.valid);
  for (const skill of valid) {
    const missing = missingOnHost(await scanSkillDependencies(skill.path), host, skill.path);
    const needed = missing.filter((dependency) => !dependency.mentionedOnly);
    // A Node package the instructions' own code imports is the skill's way of making a file (docx's docx-js,
    // pptx's pptxgenjs): the model writes that code and runs it, so it is a need, not an example.
    const creates = missing.filter((dependency) => dependency.mentionedOnly && dependency.kind === 'node');
    mentioned += missing.length - needed.length - creates.length;
    if (needed.length > 0) lacking.push(`${skill.id} needs ${needed.map(shortMissing).join(', ')}`);
    if (creates.length > 0) lacking.push(`${skill.id}'s instructions write code that imports ${creates.map(shortMissing).join(', ')} (its create path fails without it)`);
    if (needed.length + creates.length > 0) short.add(skill.id);
  }
  const name = 'dependencies';
  // What only documents mention (examples, alternatives) is counted, not listed: it is no skill's need.
  const aside = mentioned === 0 ? '' : `; ${mentioned} more only mentioned in the skills' documents (skillbot skills validate)`;
  if (lacking.length === 0) return { verdict: 'ok', name, text: `what the code of ${valid.length} skill(s) uses is on this host (static scan)${aside}` };
  return {
    verdict: 'warn',
    name,
    text: `${short.size} skill(s) use what this host lacks: ${lacking.join('; ')} (which file, and how to install: skillbot skills validate)${aside}`,
  };
}
