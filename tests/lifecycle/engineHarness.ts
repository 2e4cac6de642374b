// Drives the real engine (real registry, store, executor and approvals) against the Anthropic fake, with
// skill folders written into a temp root. Messages enter as the terminal's do: through the dispatcher's durable
// queue, answered through a terminal port that collects each turn's reply. A test double stands in for the person.
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { type App, createApp } from '../../src/app.ts';
import { type Config, loadConfig } from '../../src/config/config.ts';
import type { ApprovalOption, ApprovalRecord } from '../../src/approvals/types.ts';
import { silentLogger } from '../../src/ops/log.ts';
import type { IncomingMessage } from '../../src/platform/port.ts';
import { SkillRegistry } from '../../src/skills/registry.ts';
import type { SkillSnapshot } from '../../src/skills/types.ts';
import { type FakeAnthropic, startFakeAnthropic } from '../fakes/anthropic.ts';

export const WORLD = 'terminal:local';

/** A skill folder: SKILL.md from `frontmatter` (YAML lines after name) and `body`, plus files. */
export interface SkillSpec {
  name: string;
  /** Default: "Test skill NAME." */
  description?: string;
  frontmatter?: string;
  body: string;
  /** Relative path → content; files under scripts/ and hooks/ are made executable. */
  files?: Record<string, string | Uint8Array>;
}

export async function writeSkill(root: string, spec: SkillSpec): Promise<string> {
  const dir = join(root, spec.name);
  await mkdir(dir, { recursive: true });
  const frontmatter = `name: ${spec.name}\ndescription: ${spec.description ?? `Test skill ${spec.name}.`}\n${spec.frontmatter ?? ''}`;
  await writeFile(join(dir, 'SKILL.md'), `---\n${frontmatter.trimEnd()}\n---\n${spec.body}\n`);
  for (const [path, text] of Object.entries(spec.files ?? {})) {
    await mkdir(dirname(join(dir, path)), { recursive: true });
    await writeFile(join(dir, path), text);
    if (/^(scripts|hooks)\//.test(path)) await chmod(join(dir, path), 0o755);
  }
  return dir;
}

export interface EngineHarness {
  app: App;
  fake: FakeAnthropic;
  dir: string;
  /** Approval questions put to people, in order. */
  asked: ApprovalRecord[];
  say(
    text: string,
    options?: { chat?: string; user?: string; skill?: { id: string; args: string }; files?: Array<{ name: string; mimeType: string; bytes: Uint8Array }> },
  ): Promise<{ reply: string; status: string }>;
  close(): Promise<void>;
}

export interface HarnessOptions {
  skills: SkillSpec[];
  /** How the person answers approval questions; without it nobody can be asked (the default, no, applies). */
  answer?: ApprovalOption;
  store?: string;
  dir?: string;
  fake?: FakeAnthropic;
  tweak?: (config: Config) => void;
  /**
   * Skill processes write to files on the host (hooks journalling, order logs): the sandbox hides the host from
   * them by design (tests/exec covers it), so such tests run with SCRIPT_SANDBOX=off.
   */
  hostFiles?: boolean;
  /** Model call attempts per request (retries included); default 2. */
  maxAttempts?: number;
  /** Receives the files the bot posts in the chat (without it, the chat takes no files). */
  uploads?: Array<{ name: string; bytes: Uint8Array }>;
  /** Receives what the bot tells one person privately (without it, the chat cannot). */
  privateNotes?: Array<{ userId: string; text: string }>;
  /** Receives the progress lines a person sees while a turn works ("Loading notes…"). */
  progress?: string[];
}

export async function startEngine(options: HarnessOptions): Promise<EngineHarness> {
  const dir = options.dir ?? (await mkdtemp(join(tmpdir(), 'skillbot-lifecycle-')));
  // The chat workspaces live here: the sandbox's user must be able to enter it (mkdtemp makes it 0700).
  await chmod(dir, 0o755);
  const root = join(dir, 'skills');
  await mkdir(root, { recursive: true });
  for (const spec of options.skills) await writeSkill(root, spec);
  const fake = options.fake ?? (await startFakeAnthropic());
  const config = loadConfig({
    ANTHROPIC_API_KEY: 'test-key',
    ANTHROPIC_BASE_URL: fake.url,
    SKILLS_DIRS: root,
    STORE_URL: options.store ?? 'memory://',
    APPROVAL_TIMEOUT_MS: '5000',
    WORKSPACES_DIR: join(dir, 'workspaces'),
    ...(options.hostFiles === true ? { SCRIPT_SANDBOX: 'off' } : {}),
  });
  options.tweak?.(config);
  const app = await createApp(config, silentLogger(), { watchSkills: false, retry: { maxAttempts: options.maxAttempts ?? 2, baseDelayMs: 5, maxDelayMs: 10 } });
  // Each turn's replies, by turn id (the dispatcher asks the port for a sink when it runs the turn).
  const replies = new Map<string, string[]>();
  // The files of the messages said, by their id: the port hands them out as a platform downloads them.
  const sent = new Map<string, Uint8Array>();
  const uploads = options.uploads;
  const notes = options.privateNotes;
  app.dispatcher.addPort('terminal', {
    ...(notes === undefined ? {} : { tellPrivately: async (_chatId: string, userId: string, text: string) => void notes.push({ userId, text }) }),
    sinkFor(_message, turnId) {
      const said: string[] = [];
      replies.set(turnId, said);
      return {
        progress(text) {
          options.progress?.push(text);
        },
        async reply(markdown) {
          said.push(markdown);
        },
        ...(uploads === undefined ? {} : { upload: async (file: { name: string; bytes: Uint8Array }) => void uploads.push({ name: file.name, bytes: file.bytes }) }),
      };
    },
    async fetchFile(file) {
      const bytes = sent.get(file.id);
      if (bytes === undefined) throw new Error(`no such file ${file.id}`);
      return bytes;
    },
  });
  app.dispatcher.start();
  const asked: ApprovalRecord[] = [];
  const answer = options.answer;
  if (answer) {
    app.approvals.addPresenter('terminal', {
      async present(record) {
        asked.push(record);
        setTimeout(() => void app.approvals.respond({ worldId: record.worldId, approvalId: record.id, option: answer, userId: record.requesterId }), 1);
        return undefined;
      },
      async resolved() {},
      async tellPrivately() {},
    });
  }
  return {
    app,
    fake,
    dir,
    asked,
    async say(text, sayOptions = {}) {
      const files = (sayOptions.files ?? []).map((file) => {
        const id = `F${sent.size + 1}`;
        sent.set(id, file.bytes);
        return { id, name: file.name, mimeType: file.mimeType, size: file.bytes.byteLength, url: `test://${id}` };
      });
      const message: IncomingMessage = {
        worldId: WORLD,
        chatId: `${WORLD}/${sayOptions.chat ?? 'c1'}`,
        userId: sayOptions.user ?? 'U1',
        text,
        ...(sayOptions.skill ? { skill: sayOptions.skill } : {}),
        ...(files.length > 0 ? { files } : {}),
      };
      const outcome = await app.dispatcher.submit(message);
      const said = replies.get(outcome.turnId) ?? [];
      replies.delete(outcome.turnId);
      if (said.length !== 1) throw new Error(`expected exactly one reply, got ${said.length}`);
      return { reply: said[0] ?? '', status: outcome.status };
    },
    async close() {
      await app.close();
      if (!options.fake) await fake.close();
      if (!options.dir) await rm(dir, { recursive: true, force: true });
    },
  };
}

/** The skills of a root, as the registry validates and indexes them. */
export async function snapshotOf(root: string): Promise<SkillSnapshot> {
  const registry = await SkillRegistry.open({ roots: [root], watch: false });
  const snapshot = registry.current();
  await registry.close();
  if (snapshot.invalid.length > 0) throw new Error(`invalid test skills: ${JSON.stringify(snapshot.invalid)}`);
  return snapshot;
}

/** Reads the JSON lines a test hook or script appended to a file ([] when it was never written). */
export async function jsonLines<T = Record<string, unknown>>(file: string): Promise<T[]> {
  const text = await readFile(file, 'utf8').catch(() => '');
  return text.split('\n').filter(Boolean).map((line) => JSON.parse(line) as T);
}
