// Skills a connected server serves (the skills extension, SEP-2640, through the SDK's SkillsClient): listed as
// `<server>:<path>` entries (frontmatter only: nothing else is fetched until a skill is loaded), and materialised on
// load into a folder named by the skill's manifest digest, every file checked against the server's size and
// SHA-256 digest first. A folder the executor copies like any skill's: a changed manifest is another folder, another
// content hash, so an approval given for the old one does not cover it.
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join, normalize, sep } from 'node:path';
import type { Client } from '@modelcontextprotocol/client';
import { type Skill as ServerSkillEntry, SkillsClient, SkillVerificationError } from '@modelcontextprotocol/client/ext/skills';
import { stripHidden } from '../text/hidden.ts';

export interface ServerSkill {
  /** `<server>:<path>`, the path of the skill's folder on the server (`release-notes`, `release-notes/draft`). */
  id: string;
  server: string;
  name: string;
  description: string;
  /** SHA-256 over the skill's files (path, size, digest): what an approval of it is bound to. */
  manifestDigest: string;
  entry: ServerSkillEntry;
}

const SKILL_FILE = '/SKILL.md';
/** A file's path inside a skill: plain segments only (no `..`, no empty or hidden segment). */
const SAFE_PATH = /^[A-Za-z0-9_-][A-Za-z0-9._-]*(\/[A-Za-z0-9_-][A-Za-z0-9._-]*)*$/;
/**
 * A skill's path on the server as an id part: segments of letters, digits, `_` and `-` (no dot, so the id's mount
 * name in the sandbox, `<server>.<segment>.<segment>`, names one skill only: src/config/sandboxPaths.ts).
 */
const SKILL_PATH = /^[A-Za-z0-9_-]+(\/[A-Za-z0-9_-]+)*$/;

/** The skill's folder on the server (the `SKILL.md` URI without its scheme and file). */
function skillPath(uri: string): string | undefined {
  const match = /^[a-z][a-z0-9+.-]*:\/\/(.+)$/i.exec(uri);
  if (match === null || !match[1]!.endsWith(SKILL_FILE)) return undefined;
  const path = match[1]!.slice(0, -SKILL_FILE.length);
  return SKILL_PATH.test(path) ? path : undefined;
}

/** A file's path inside its skill's folder, or undefined when it is not under it (or not a plain path). */
function fileIn(skillUri: string, fileUri: string): string | undefined {
  const root = skillUri.slice(0, -'SKILL.md'.length);
  if (!fileUri.startsWith(root)) return undefined;
  const rel = decodeURIComponent(fileUri.slice(root.length));
  const clean = normalize(rel);
  return SAFE_PATH.test(rel) && clean === rel && !clean.startsWith(`..${sep}`) ? rel : undefined;
}

function manifestDigest(entry: ServerSkillEntry): string {
  const files = entry.resources === 'dynamic' ? [] : entry.resources.map((file) => [file.uri, file.size, file.digest]).sort();
  return createHash('sha256').update(JSON.stringify([entry.uri, files])).digest('hex');
}

/**
 * The server's skills, or none when it does not serve the extension. A skill is left out (and said why in
 * `refused`) when its files are `dynamic` (nothing to verify them against), or its path or a file's is not plain.
 */
export async function listServerSkills(client: Client, server: string, timeoutMs: number): Promise<{ skills: ServerSkill[]; refused: string[]; ttlMs?: number }> {
  const skillsClient = new SkillsClient(client, { skipInvalid: true });
  if (!skillsClient.supported) return { skills: [], refused: [] };
  const listing = await skillsClient.list({}, { timeout: timeoutMs });
  const refused = listing.invalid.map((invalid) => `${invalid.uri ?? `entry ${invalid.index}`}: ${invalid.reason}`);
  const skills: ServerSkill[] = [];
  for (const entry of listing.skills) {
    const path = skillPath(entry.uri);
    if (path === undefined) refused.push(`${entry.uri}: not a plain skill path`);
    else if (entry.resources === 'dynamic') refused.push(`${entry.uri}: its files are dynamic, so they cannot be verified`);
    else if (entry.resources.some((file) => fileIn(entry.uri, file.uri) === undefined)) refused.push(`${entry.uri}: a file lies outside its folder`);
    else {
      const description = stripHidden(String(entry.frontmatter.description)).text;
      skills.push({ id: `${server}:${path}`, server, name: stripHidden(String(entry.frontmatter.name)).text, description, manifestDigest: manifestDigest(entry), entry });
    }
  }
  return { skills, refused, ...(listing.ttlMs === undefined ? {} : { ttlMs: listing.ttlMs }) };
}

/**
 * Fetches and verifies every file of the skill into `<root>/<server>/<manifest digest>` (once: a complete folder is
 * reused), and returns that folder. A file that fails its size or digest check refuses the whole skill.
 */
export async function materializeServerSkill(client: Client, skill: ServerSkill, root: string, timeoutMs: number): Promise<{ ok: true; dir: string } | { ok: false; why: string }> {
  const dir = join(root, createHash('sha256').update(skill.server).digest('hex').slice(0, 16), skill.manifestDigest);
  if (existsSync(join(dir, 'SKILL.md'))) return { ok: true, dir };
  await mkdir(dirname(dir), { recursive: true, mode: 0o755 });
  const staging = await mkdtemp(`${dir}.part-`);
  const skillsClient = new SkillsClient(client);
  try {
    for (const file of skill.entry.resources === 'dynamic' ? [] : skill.entry.resources) {
      const rel = fileIn(skill.entry.uri, file.uri)!;
      const read = await skillsClient.read(skill.entry, file.uri, { timeout: timeoutMs });
      await mkdir(dirname(join(staging, rel)), { recursive: true, mode: 0o755 });
      await writeFile(join(staging, rel), read.bytes, { mode: rel.startsWith('scripts/') ? 0o755 : 0o644, flag: 'wx' });
    }
    await rename(staging, dir).catch(async (error: NodeJS.ErrnoException) => {
      // Another load made the same folder first: its bytes are the same verified ones.
      if (error.code !== 'ENOTEMPTY' && error.code !== 'EEXIST') throw error;
      await rm(staging, { recursive: true, force: true });
    });
    return { ok: true, dir };
  } catch (error) {
    await rm(staging, { recursive: true, force: true });
    if (error instanceof SkillVerificationError) return { ok: false, why: `the skill ${skill.id} was refused: ${error.uri} failed its ${error.reason} check against the server's own listing` };
    return { ok: false, why: `the skill ${skill.id} could not be fetched: ${(error as Error).message.replace(/\s+/g, ' ').slice(0, 300)}` };
  }
}
