// More of anthropics/skills as a new user meets it (issue 36's second try), in Slack threads with a scripted model
// standing in for Claude: xlsx installed by a lightweight tag (`github:anthropics/skills@TAG`) and docx by an
// annotated one; a budget made with openpyxl and recalculated by the xlsx skill's recalc.py (LibreOffice);
// a Word file edited through the docx skill's unpack → edit XML → pack path; a PDF page rendered with pdftoppm and
// viewed with the editor, checking that the model's next request carries the image block. What reaches the thread
// is read back on the host. The tags are made by the caller in its own clone (bench/tryDocuments.ts).
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { textReply, toolUseReply } from '../../tests/fakes/anthropic.ts';
import { BOB, PYTHON, say, type Try } from './harness.ts';

const python = (code: string, ...args: string[]) => execFileSync(PYTHON, ['-c', code, ...args], { encoding: 'utf8' }).trim();
const bash = (command: string) => toolUseReply('bash', { command });

/** Installs `skill` from `source` (with its tag) in a new thread; returns the thread, or undefined if not installed. */
async function installByTag(t: Try, skill: string, source: string): Promise<string | undefined> {
  const root = await t.mention(`skills install ${source} --skill ${skill}`);
  const answer = await t.slack.waitFor(() => t.slack.thread('C0GENERAL', root).find((m) => m.ts > root && (JSON.stringify(m.blocks ?? []).includes('"hitl_') || /^(Installed|Not installed|Cannot install)/.test(m.text) || /tag|branch|not exist|cannot/i.test(m.text))), { what: `an answer to installing ${source}`, timeoutMs: 180_000 });
  if (!JSON.stringify(answer.blocks ?? []).includes('"hitl_')) {
    say(`[tag ${source}] skillbot said: ${answer.text.split('\n').slice(0, 3).join(' / ')}`);
    return undefined;
  }
  const done = await t.approveUntil(root, BOB, t.installed(root, skill, root));
  say(`[tag ${source}] -> ${done.text.split('\n')[0]}`);
  return done.text.startsWith('Installed') ? root : undefined;
}

/** Installs without a tag when the tagged install failed, so the document workflows are still tried. */
async function install(t: Try, skill: string, tagged: string): Promise<string | undefined> {
  const byTag = await installByTag(t, skill, tagged);
  if (byTag !== undefined) return byTag;
  const root = await t.mention(`skills install github:anthropics/skills --skill ${skill}`);
  const done = await t.approveUntil(root, BOB, t.installed(root, skill, root));
  say(`[untagged ${skill}] -> ${done.text.split('\n')[0]}`);
  return done.text.startsWith('Installed') ? root : undefined;
}

async function tryXlsx(t: Try, tag: string): Promise<void> {
  const root = await install(t, 'xlsx', `github:anthropics/skills@${tag}`);
  if (root === undefined) return;
  const make = ['from openpyxl import Workbook', 'wb = Workbook(); ws = wb.active; ws.title = "Budget"', 'ws.append(["Item", "Cost"])', 'for row in [["Rent", 1200], ["Food", 450], ["Travel", 300]]: ws.append(row)', 'ws["A5"] = "Total"; ws["B5"] = "=SUM(B2:B4)"', 'wb.save("/workspace/outputs/budget.xlsx")'].join('\n');
  await t.turn('xlsx', 'Make me a small budget spreadsheet with a total row.', [
    toolUseReply('load_skill', { skill_id: 'xlsx' }),
    bash(`mkdir -p /workspace/outputs && python3 - <<'PY'\n${make}\nPY`),
    toolUseReply('run_skill_script', { skill_id: 'xlsx', script: 'scripts/recalc.py', args: ['outputs/budget.xlsx', '60'] }),
    textReply('DONE: budget.xlsx with a recalculated total.'),
  ], { threadTs: root });
  const sheet = t.slack.uploads.findLast((u) => u.name === 'budget.xlsx' && u.threadTs === root);
  if (sheet === undefined) return say('[xlsx] no budget.xlsx reached the thread');
  const out = join(t.dir, 'budget.xlsx');
  writeFileSync(out, sheet.bytes);
  say(`[xlsx] budget.xlsx reached the thread (${sheet.bytes.length} bytes); B5 read back: ${python('import sys; from openpyxl import load_workbook\nwb = load_workbook(sys.argv[1]); wv = load_workbook(sys.argv[1], data_only=True)\nprint(wb.active["B5"].value, "=", wv.active["B5"].value)', out)}`);
}

async function tryDocx(t: Try, tag: string): Promise<void> {
  const root = await install(t, 'docx', `github:anthropics/skills@${tag}`);
  if (root === undefined) return;
  const original = join(t.dir, 'letter.docx');
  python('import sys; from docx import Document\nd = Document(); d.add_heading("Letter", 1); d.add_paragraph("Dear Bob, the meeting is on Monday."); d.save(sys.argv[1])', original);
  const shared = t.slack.shareFile({ name: 'letter.docx', mimetype: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document', bytes: execFileSync('cat', [original]) });
  await t.turn('docx', 'In this letter, move the meeting to Tuesday.', [
    toolUseReply('load_skill', { skill_id: 'docx' }),
    toolUseReply('run_skill_script', { skill_id: 'docx', script: 'scripts/office/unpack.py', args: ['letter.docx', 'unpacked/'] }),
    toolUseReply('str_replace_based_edit_tool', { command: 'str_replace', path: '/workspace/unpacked/word/document.xml', old_str: 'Monday', new_str: 'Tuesday' }),
    toolUseReply('run_skill_script', { skill_id: 'docx', script: 'scripts/office/pack.py', args: ['unpacked/', 'outputs/letter-edited.docx', '--original', 'letter.docx'] }),
    textReply('DONE: moved to Tuesday.'),
  ], { threadTs: root, files: [shared] });
  const edited = t.slack.uploads.findLast((u) => u.name === 'letter-edited.docx' && u.threadTs === root);
  if (edited === undefined) return say('[docx] no letter-edited.docx reached the thread');
  const out = join(t.dir, 'letter-edited.docx');
  writeFileSync(out, edited.bytes);
  say(`[docx] letter-edited.docx reached the thread (${edited.bytes.length} bytes); text read back: ${python('import sys; from docx import Document\nprint(" | ".join(p.text for p in Document(sys.argv[1]).paragraphs))', out)}`);
}

/** The pdf skill's page check with poppler's pdftoppm and the editor's view; is the PNG in the model's request? */
async function tryPageImage(t: Try): Promise<void> {
  const pdf = join(t.dir, 'report.pdf');
  python('import sys; from reportlab.pdfgen import canvas\nc = canvas.Canvas(sys.argv[1]); c.setFont("Helvetica", 24); c.drawString(72, 700, "Quarterly report"); c.save()', pdf);
  const shared = t.slack.shareFile({ name: 'report.pdf', mimetype: 'application/pdf', bytes: execFileSync('cat', [pdf]) });
  const before = t.anthropic.requests.length;
  await t.turn('page image', 'Does the first page of this PDF look right?', [
    bash('pdftoppm -png -r 40 -singlefile /workspace/report.pdf /workspace/page1'),
    toolUseReply('str_replace_based_edit_tool', { command: 'view', path: '/workspace/page1.png' }),
    textReply('DONE: looked at page 1.'),
  ], { files: [shared] });
  const images = t.anthropic.requests.slice(before).flatMap((r) => (r.body?.messages ?? []).slice(-1)).flatMap((m) => (Array.isArray(m.content) ? m.content : []))
    .flatMap((b: { type?: string; content?: unknown }) => (b.type === 'tool_result' && Array.isArray(b.content) ? b.content : []))
    .filter((b: { type?: string }) => b.type === 'image') as Array<{ source?: { media_type?: string; data?: string } }>;
  say(`[page image] image blocks in the model's requests: ${images.map((i) => `${i.source?.media_type} (${i.source?.data?.length ?? 0} base64 chars)`).join(', ') || 'none'}`);
  // The progress line lives in the turn's progress message (edited, then perhaps deleted) or its stream's tasks.
  const seen = [...t.slack.messages, ...t.slack.deleted].flatMap((m) => [m, ...m.edits]).map((m) => `${m.text}\n${JSON.stringify(m.blocks ?? [])}\n${JSON.stringify((m as { tasks?: unknown }).tasks ?? [])}`);
  const told = [...new Set(seen.flatMap((text) => /Showed Claude the image[^"\n]*/.exec(text)?.[0] ?? []))];
  say(`[page image] what the person was told: ${told.join(' | ') || 'nothing'}`);
}

export async function tryDocuments(t: Try, tags: { light: string; annotated: string }): Promise<void> {
  await tryXlsx(t, tags.light);
  await tryDocx(t, tags.annotated);
  await tryPageImage(t);
}
