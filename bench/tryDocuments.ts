// A try by hand (issue 36's second try): bench/try/documents.ts against a fetched copy of anthropics/skills served
// from the loopback git server, with a bot on the Slack fake and a scripted model standing in for Claude.
// Makes two tags in the copy given (a lightweight try-light and an annotated try-annotated; a clone of yours, not
// the mirror). Not a test (CI has no copy).
// Run: node --import tsx bench/tryDocuments.ts ANTHROPIC_SKILLS_CLONE
import { execFileSync } from 'node:child_process';
import { startTry } from './try/harness.ts';
import { tryDocuments } from './try/documents.ts';

const [clone] = process.argv.slice(2);
if (!clone) throw new Error('usage: node --import tsx bench/tryDocuments.ts ANTHROPIC_SKILLS_CLONE');
const tags = { light: 'try-light', annotated: 'try-annotated' };
execFileSync('git', ['-C', clone, 'tag', '-f', tags.light]);
execFileSync('git', ['-C', clone, '-c', 'user.name=try', '-c', 'user.email=try@example.invalid', 'tag', '-f', '-a', tags.annotated, '-m', 'a release']);
const t = await startTry({ 'anthropics/skills': clone });
try {
  await tryDocuments(t, tags);
} finally {
  await t.close();
}
