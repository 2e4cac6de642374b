// find_skills: offered when the catalog leaves skills out, answering with the skills this world allows.
import { afterEach, describe, expect, it } from 'vitest';
import { lastToolResult, textReply, toolUseReply, type RequestMessage } from '../fakes/anthropic.ts';
import { type EngineHarness, type SkillSpec, startEngine } from '../lifecycle/engineHarness.ts';

let harness: EngineHarness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

const many: SkillSpec[] = Array.from({ length: 30 }, (_, i) => ({
  name: `helper-${String(i).padStart(2, '0')}`,
  description: `Helper number ${i} for routine chores of the office.`,
  body: `Instructions of helper ${i}.`,
}));
const wanted: SkillSpec[] = [
  { name: 'zz-invoice-chaser', description: 'Find unpaid invoices and draft reminder emails.', body: 'Chase invoices.' },
  { name: 'zz-secret-payroll', description: 'Run payroll for unpaid invoices of staff.', body: 'Payroll.' },
  { name: 'zz-manual-invoices', description: 'Void unpaid invoices by hand.', frontmatter: 'disable-model-invocation: true', body: 'Manual.' },
];

/** The model searches, then answers with what find_skills said. */
const searchThenEcho = (req: { messages: RequestMessage[] }) => {
  const result = lastToolResult(req);
  return result ? textReply(result.content) : toolUseReply('find_skills', { query: 'chase unpaid invoices' });
};

describe('find_skills', () => {
  it('is offered when the catalog leaves skills out, says so, and finds only skills this world lets the model use', async () => {
    harness = await startEngine({
      skills: [...many, ...wanted],
      tweak: (config) => {
        config.agent.catalogBudgetChars = 700;
        config.defaults.skills = [...many.map((skill) => skill.name), 'zz-invoice-chaser', 'zz-manual-invoices'];
      },
    });
    harness.fake.setBrain(searchThenEcho);
    const { reply } = await harness.say('who still owes us money?');
    const request = harness.fake.requests[0]?.body;
    expect(request?.tools?.map((tool) => tool.name)).toEqual(['load_skill', 'run_skill_script', 'find_skills', 'bash', 'str_replace_based_edit_tool', 'schedule_followup']);
    expect(JSON.stringify(request?.system)).toContain('find_skills(query) searches every skill');
    expect(reply).toMatch(/^<skill_search query="chase unpaid invoices" results="\d+">\nzz-invoice-chaser: Find unpaid invoices/);
    // Not allowed in this world, or kept from the model: never named.
    expect(reply).not.toContain('zz-secret-payroll');
    expect(reply).not.toContain('zz-manual-invoices');
  });

  it('is not offered when the catalog lists every skill', async () => {
    harness = await startEngine({ skills: wanted });
    harness.fake.setBrain(() => textReply('ok'));
    await harness.say('hello');
    expect(harness.fake.requests[0]?.body?.tools?.map((tool) => tool.name)).toEqual(['load_skill', 'run_skill_script', 'bash', 'str_replace_based_edit_tool', 'schedule_followup']);
  });
});
