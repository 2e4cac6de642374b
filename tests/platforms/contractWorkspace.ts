// The contract's workspace scenarios: a skill written for Claude Code works as its authors wrote it. Its scripts
// take paths of the person's files in /workspace, write beside them, chain over runs; the model reads what a run
// wrote from the tool result and edits files with its own editor; the shell runs only what a person approved.
import { expect, it } from 'vitest';
import { NOT_ALLOWED_TEXT } from '../../src/approvals/approvals.ts';
import { type BrainReply, type BrainRequest, stepsBrain, textReply, toolUseReply } from '../fakes/anthropic.ts';
import { fillablePdf } from '../fixtures/documents.ts';
import { PDF_FORMS_SKILL } from '../fixtures/documentSkills.ts';
import type { ContractContext } from './contract.ts';

/** A model that does what Claude does: says a sentence, then calls the next tool, round after round. */
function stepsOf(ctx: ContractContext, steps: ReadonlyArray<(req: BrainRequest) => BrainReply>, seen: string[]): void {
  ctx.anthropic.setBrain(stepsBrain(steps, seen));
}

const CSV = 'region,sales\nnorth,120\nsouth,80\neast,200\n';

/** The text a person reads: a card given as JSON (Slack's blocks) is the strings in it. */
function cardStrings(text: string): string {
  const strings: string[] = [];
  try {
    JSON.parse(text, (_key, value: unknown) => {
      if (typeof value === 'string') strings.push(value);
      return value;
    });
    return strings.join('\n');
  } catch {
    return text;
  }
}

export function workspaceScenarios(ctx: ContractContext): void {
  it('fills a PDF form the person attached, with scripts named only in a linked forms.md, after one "yes for this conversation"', async () => {
    const seen: string[] = [];
    stepsOf(
      ctx,
      [
        () => toolUseReply('load_skill', { skill_id: PDF_FORMS_SKILL.id }, { text: "I'll load the PDF forms skill." }),
        () => toolUseReply('str_replace_based_edit_tool', { command: 'view', path: '/skills/pdf-forms/forms.md' }, { text: 'Reading the form steps.' }),
        () => toolUseReply('run_skill_script', { skill_id: PDF_FORMS_SKILL.id, script: 'scripts/extract_fields.py', args: ['form.pdf', 'field_info.json'] }, { text: 'Extracting the fields.' }),
        () => toolUseReply('str_replace_based_edit_tool', { command: 'create', path: '/workspace/values.json', file_text: '{"name": "Ada Lovelace", "team": "Engines"}\n' }, { text: 'Writing the values.' }),
        () => toolUseReply('run_skill_script', { skill_id: PDF_FORMS_SKILL.id, script: 'scripts/fill_form.py', args: ['form.pdf', 'values.json', 'outputs/form-filled.pdf'] }, { text: 'Filling the form.' }),
        () => textReply('The filled form is in the thread.'),
      ],
      seen,
    );
    const chat = await ctx.driver.mention('alice', 'fill in this form for Ada Lovelace of the Engines team', [{ name: 'form.pdf', type: 'application/pdf', bytes: fillablePdf(['name', 'team']) }]);
    const question = await chat.waitForQuestion();
    expect(question.text()).toContain('scripts/extract_fields.py');
    expect(question.text()).toContain('form.pdf');
    await question.click('alice', 'yes_in_session');
    // A second card nobody clicks would hold the turn: the answer arriving means the grant covered the fill.
    await chat.waitForAnswer(/The filled form is in the thread\./);

    expect(seen[0]).toContain('status="loaded"');
    expect(seen[1]).toContain('scripts/fill_form.py <input.pdf> values.json <output.pdf>');
    // What the script wrote comes back with its run: no second round trip to read it.
    expect(seen[2]).toMatch(/<file path="\/workspace\/field_info\.json" bytes="\d+" new="true">[\s\S]*"name": "name"/);
    expect(seen[3]).toBe('File created successfully at: /workspace/values.json');
    expect(seen[4]).toContain('Delivered to the chat: form-filled.pdf');
    const filled = chat.uploadedFiles().find((file) => file.name === 'form-filled.pdf');
    // pypdf writes the space of a value as \040.
    expect(filled?.text).toMatch(/\/V \(Ada(\\040| )Lovelace\)/);
    expect(filled?.text).toContain('/V (Engines)');
    expect(filled?.caption).toContain('pdf-forms');
  });

  it('runs the shell only on a yes for the exact command: a stranger cannot approve it; the model reads its output', async () => {
    const seen: string[] = [];
    const command = `python3 -c "import csv; print(sum(1 for _ in csv.DictReader(open('/workspace/sales.csv'))))"`;
    stepsOf(ctx, [() => toolUseReply('bash', { command }, { text: 'Let me count the rows.' }), () => textReply('It has 3 rows.')], seen);
    const chat = await ctx.driver.mention('alice', 'how many rows does this have?', [{ name: 'sales.csv', type: 'text/csv', bytes: CSV }]);
    const question = await chat.waitForQuestion();
    expect(question.text()).toContain("csv.DictReader(open('/workspace/sales.csv'))");
    // Verbatim, as the shell gets it: its own quotes unescaped (a driver whose text is the card's JSON: its strings).
    expect(cardStrings(question.text())).toContain(command);
    await question.click('bob', 'yes_once');
    await chat.waitForPrivateNote('bob', NOT_ALLOWED_TEXT);
    expect(question.isOpen()).toBe(true);
    await question.click('alice', 'yes_once');
    await chat.waitForAnswer('It has 3 rows.');
    expect(seen[0]).toBe('3');
  });
}
