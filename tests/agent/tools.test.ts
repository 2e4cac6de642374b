// The tool contract as the model and the person meet it: each tool's own line while it runs, its own sentence for
// input that does not fit its schema, and a call to a tool nobody offers answered with the tools that are.
import { afterEach, describe, expect, it } from 'vitest';
import { lastToolResult, textReply, toolUseReply, type RequestMessage } from '../fakes/anthropic.ts';
import { type EngineHarness, startEngine } from '../lifecycle/engineHarness.ts';

let harness: EngineHarness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

/** The model calls one tool, then answers with the tool's result, word for word. */
const callThenEcho = (name: string, input: unknown) => (req: { messages: RequestMessage[] }) => {
  const result = lastToolResult(req);
  return result ? textReply(`${result.isError ? 'error: ' : ''}${result.content}`) : toolUseReply(name, input);
};

describe('the tool contract', () => {
  it('shows the person each tool\'s own progress line while it runs', async () => {
    const progress: string[] = [];
    harness = await startEngine({ skills: [{ name: 'release-notes', description: 'Write release notes.', body: 'Write them.' }], progress });
    harness.fake.setBrain(callThenEcho('load_skill', { skill_id: 'release-notes' }));
    const { reply } = await harness.say('write the release notes');
    expect(reply).toContain('<skill_context');
    expect(progress).toContain('Loading release-notes…');
  });

  it('answers input that does not fit a tool\'s schema with that tool\'s own sentence', async () => {
    harness = await startEngine({ skills: [] });
    harness.fake.setBrain(callThenEcho('schedule_followup', { when: 'in 30 minutes' }));
    const { reply, status } = await harness.say('remind me later');
    expect(status).toBe('answered');
    expect(reply).toMatch(/^error: schedule_followup needs \{"when": "in 30 minutes", "note": "what to check"\}: /);
  });

  it('answers a call to a tool nobody offers with the tools offered here', async () => {
    harness = await startEngine({ skills: [], tweak: (config) => void (config.defaults.bash = false) });
    harness.fake.setBrain(callThenEcho('delete_everything', {}));
    const { reply } = await harness.say('clean up');
    expect(reply).toBe('error: Unknown tool "delete_everything". Available tools: load_skill, run_skill_script, str_replace_based_edit_tool, schedule_followup.');
  });
});
