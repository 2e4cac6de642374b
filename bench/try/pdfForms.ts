// anthropics/skills' pdf skill as a new user meets it: installed by a mention in a Slack thread, then in that same
// thread a fillable form filled (forms.md's "Fillable fields") and a form without fields filled with annotations
// (its "Non-fillable fields", Approach A), every card approved; what reaches the thread is read back on the host.
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { textReply, toolUseReply } from '../../tests/fakes/anthropic.ts';
import { BOB, PYTHON, say, type Try } from './harness.ts';

const run = (script: string, args: string[], files?: Record<string, string>) => toolUseReply('run_skill_script', { skill_id: 'pdf', script, args, ...(files ? { files } : {}) });
const python = (code: string, ...args: string[]) => execFileSync(PYTHON, ['-c', code, ...args], { encoding: 'utf8' }).trim();
/** The JSON a script wrote, as the model reads it in the run's workspace changes (undefined if not shown whole). */
const writtenJson = (result: string | undefined, name: string): unknown => {
  const text = new RegExp(`<file path="/workspace/${name}"[^>]*>([\\s\\S]*?)</file>`).exec(result ?? '')?.[1];
  try {
    return text === undefined ? undefined : JSON.parse(text);
  } catch {
    return undefined;
  }
};

export async function tryPdf(t: Try): Promise<void> {
  // 1. Installed from a thread: the card and the answer land in it.
  const root = await t.mention('skills install github:anthropics/skills --skill pdf');
  const { text } = await t.nextCard(root, root, join(t.dir, '..', 'try-pdf-card.txt'));
  t.sayCard('install pdf (in a thread)', text);
  const done = await t.approveUntil(root, BOB, t.installed(root, 'pdf', root));
  say(`  -> ${done.text.split('\n')[0]}`);
  if (!done.text.startsWith('Installed')) return;

  // 2. A fillable form (reportlab on the host, as someone's form would be), in the same thread.
  const form = join(t.dir, 'form.pdf');
  python(['import sys', 'from reportlab.pdfgen import canvas', 'c = canvas.Canvas(sys.argv[1])', 'c.drawString(72, 760, "Name:")', 'c.acroForm.textfield(name="full_name", x=130, y=750, width=250, height=20)', 'c.drawString(72, 720, "I agree:")', 'c.acroForm.checkbox(name="agree", x=130, y=712, size=16)', 'c.save()'].join('\n'), form);
  const pdf = t.slack.shareFile({ name: 'form.pdf', mimetype: 'application/pdf', bytes: readFileSync(form) });
  await t.turn('fillable', 'Fill in this form: name Ada Lovelace, and tick that I agree.', [
    toolUseReply('load_skill', { skill_id: 'pdf' }),
    run('scripts/check_fillable_fields.py', ['form.pdf']),
    run('scripts/extract_form_field_info.py', ['form.pdf', 'field_info.json']),
    run('scripts/convert_pdf_to_images.py', ['form.pdf', 'outputs']),
    (results) => {
      const fields = (writtenJson(results[2], 'field_info.json') ?? []) as Array<{ field_id: string; page: number; type: string; checked_value?: string }>;
      if (fields.length === 0) say('  (the model could not read field_info.json from the result)');
      const values = fields.map((f) => ({ field_id: f.field_id, page: f.page, value: f.type === 'checkbox' ? (f.checked_value ?? '/Yes') : 'Ada Lovelace' }));
      return run('scripts/fill_fillable_fields.py', ['form.pdf', 'field_values.json', 'outputs/filled.pdf'], { 'field_values.json': JSON.stringify(values, null, 2) });
    },
    textReply('DONE: the form is filled.'),
  ], { threadTs: root, files: [pdf] });
  const filled = t.slack.uploads.find((u) => u.name === 'filled.pdf' && u.threadTs === root);
  if (filled === undefined) say('[fillable] no filled.pdf reached the thread');
  else {
    const out = join(t.dir, 'filled.pdf');
    writeFileSync(out, filled.bytes);
    const values = python('import sys; from pypdf import PdfReader; print({k: v.get("/V") for k, v in (PdfReader(sys.argv[1]).get_fields() or {}).items()})', out);
    // Whether a viewer shows the name: the text field's appearance stream carries it (pypdf writes one).
    const shown = python('import sys; from pypdf import PdfReader\nr = PdfReader(sys.argv[1])\nprint(any(b"Ada Lovelace" in a.get_object()["/AP"]["/N"].get_object().get_data() for a in r.pages[0]["/Annots"] if "/AP" in a.get_object() and a.get_object().get("/FT") == "/Tx"))', out);
    const text = execFileSync('pdftotext', ['-layout', out, '-'], { encoding: 'utf8' }).replace(/\s+/g, ' ').trim();
    say(`[fillable] filled.pdf reached the thread (${filled.bytes.length} bytes); fields read back as ${values}; name in the appearance stream: ${shown}; pdftotext: ${text}`);
    execFileSync('pdftoppm', ['-png', '-r', '60', '-singlefile', out, join(t.dir, '..', 'try-filled')]);
  }
  const pages = t.slack.uploads.filter((u) => u.threadTs === root && /^page_\d+\.png$/.test(u.name));
  say(`[fillable] page images in the thread: ${pages.map((u) => `${u.name} (${u.bytes.length} B)`).join(', ') || 'none'}`);

  // 3. A form without fields (labels, row lines, a checkbox), filled with annotations, in the same thread.
  const plain = join(t.dir, 'plain.pdf');
  python(['import sys', 'from reportlab.pdfgen import canvas', 'c = canvas.Canvas(sys.argv[1])', 'c.setFont("Helvetica", 11)', 'c.drawString(72, 700, "Full name:")', 'c.line(72, 690, 540, 690)', 'c.drawString(72, 660, "Date:")', 'c.line(72, 650, 540, 650)', 'c.drawString(72, 622, "I agree")', 'c.rect(130, 620, 10, 10)', 'c.line(72, 610, 540, 610)', 'c.save()'].join('\n'), plain);
  const shared = t.slack.shareFile({ name: 'plain.pdf', mimetype: 'application/pdf', bytes: readFileSync(plain) });
  await t.turn('non-fillable', 'And this one has no fields: name Ada Lovelace, date 1843-07-10, and tick I agree.', [
    toolUseReply('load_skill', { skill_id: 'pdf' }),
    run('scripts/check_fillable_fields.py', ['plain.pdf']),
    run('scripts/extract_form_structure.py', ['plain.pdf', 'form_structure.json']),
    (results) => toolUseReply('run_skill_script', { skill_id: 'pdf', script: 'scripts/check_bounding_boxes.py', args: ['fields.json'], files: { 'fields.json': JSON.stringify(fieldsFrom(results[2]), null, 2) } }),
    run('scripts/fill_pdf_form_with_annotations.py', ['plain.pdf', 'fields.json', 'outputs/plain-filled.pdf']),
    // forms.md's Step 4: look at the result (only files at the top of outputs/ reach the thread).
    run('scripts/convert_pdf_to_images.py', ['outputs/plain-filled.pdf', 'outputs']),
    // A helper the pdf skill ships but none of its instructions name: refused (script_not_referenced).
    run('scripts/create_validation_image.py', ['1', 'fields.json', 'outputs/page_1.png', 'outputs/validation.png']),
    textReply('DONE: annotated.'),
  ], { threadTs: root, files: [shared] });
  const annotated = t.slack.uploads.find((u) => u.name === 'plain-filled.pdf' && u.threadTs === root);
  if (annotated === undefined) say('[non-fillable] no plain-filled.pdf reached the thread');
  else {
    const out = join(t.dir, 'plain-filled.pdf');
    writeFileSync(out, annotated.bytes);
    const notes = python('import sys; from pypdf import PdfReader\nr = PdfReader(sys.argv[1])\nprint([(a.get_object()["/Subtype"], a.get_object().get("/Contents")) for a in r.pages[0].get("/Annots", [])])', out);
    const text = execFileSync('pdftotext', ['-layout', out, '-'], { encoding: 'utf8' }).replace(/\s+/g, ' ').trim();
    say(`[non-fillable] plain-filled.pdf reached the thread (${annotated.bytes.length} bytes); its annotations: ${notes}; pdftotext (page text, not annotations): ${text}`);
    execFileSync('pdftoppm', ['-png', '-r', '60', '-singlefile', out, join(t.dir, '..', 'try-plain-filled')]);
  }
  const pageImage = t.slack.uploads.filter((u) => u.threadTs === root && u.name === 'page_1.png').at(-1);
  if (pageImage !== undefined) writeFileSync(join(t.dir, '..', 'try-plain-filled-page_1.png'), pageImage.bytes);
  say(`[non-fillable] images in the thread: ${t.slack.uploads.filter((u) => u.threadTs === root && u.name.endsWith('.png')).map((u) => u.name).join(', ')}`);
}

interface Box { text: string; x0: number; top: number; x1: number; bottom: number }

/** What a model makes of form_structure.json (forms.md's A.3): entries after each label, the checkbox's own box. */
function fieldsFrom(result: string | undefined) {
  const structure = writtenJson(result, 'form_structure.json') as { pages: Array<{ width: number; height: number }>; labels: Box[]; checkboxes: Box[] } | undefined;
  if (structure === undefined) say('  (the model could not read form_structure.json from the result)');
  const labels = structure?.labels ?? [];
  const label = (word: string) => labels.find((l) => l.text === word) ?? { text: word, x0: 72, top: 0, x1: 100, bottom: 10 };
  const name = label('name:');
  const full = label('Full');
  const date = label('Date:');
  const agree = label('agree');
  const box = structure?.checkboxes[0] ?? { x0: 130, top: 162, x1: 140, bottom: 172 };
  const entry = (l: Box, text: string, from = l.x0) => ({ page_number: 1, description: `${text} entry`, field_label: l.text, label_bounding_box: [from, l.top, l.x1, l.bottom], entry_bounding_box: [l.x1 + 5, l.top - 4, 400, l.bottom + 4], entry_text: { text, font_size: 10 } });
  return {
    pages: [{ page_number: 1, pdf_width: structure?.pages[0]?.width ?? 612, pdf_height: structure?.pages[0]?.height ?? 792 }],
    form_fields: [
      { ...entry(name, 'Ada Lovelace', full.x0), description: 'Full name entry' },
      { ...entry(date, '1843-07-10'), description: 'Date entry' },
      { page_number: 1, description: 'I agree checkbox', field_label: 'I agree', label_bounding_box: [label('I').x0, agree.top, agree.x1, agree.bottom], entry_bounding_box: [box.x0, box.top, box.x1, box.bottom], entry_text: { text: 'X', font_size: 9 } },
    ],
  };
}
