// A bot with MCP servers: the engine harness (real app, fake Anthropic) with servers configured and a presenter
// that records every question and answers it as the test says.
import { realpathSync } from 'node:fs';
import { join } from 'node:path';
import type { ApprovalOption, ApprovalRecord } from '../../src/approvals/index.ts';
import type { Config } from '../../src/config/config.ts';
import { resolveMcpServers, type McpServersInput } from '../../src/config/mcpSettings.ts';
import { type Harness, type SkillFixture, startHarness } from '../agent/harness.ts';

/** server-everything's stdio entry, as an operator would write it with an absolute path. */
export const EVERYTHING_ENTRY = realpathSync(join(import.meta.dirname, '..', '..', 'node_modules', '@modelcontextprotocol', 'server-everything', 'dist', 'index.js'));

export interface McpHarness extends Harness {
  questions: ApprovalRecord[];
  /** Answers the next questions, in order (by the requester unless `by` is given). */
  answers: Array<{ option: ApprovalOption; by?: string }>;
}

export async function startMcpHarness(
  servers: McpServersInput,
  world: { mcp?: string[]; mcpNoApproval?: string[]; network?: string[] } = {},
  tweak: (config: Config) => void = () => {},
  skills: SkillFixture[] = [],
): Promise<McpHarness> {
  const questions: ApprovalRecord[] = [];
  const answers: McpHarness['answers'] = [];
  const harness = await startHarness({
    skills,
    tweak: (config) => {
      config.mcp.servers = resolveMcpServers(servers, process.env);
      config.mcp.timeoutMs = 20_000;
      config.defaults.mcp = world.mcp ?? ['*'];
      config.defaults.mcpNoApproval = world.mcpNoApproval ?? [];
      config.defaults.network = world.network ?? [];
      tweak(config);
    },
  });
  harness.app.approvals.addPresenter('terminal', {
    async present(record) {
      questions.push(record);
      const answer = answers.shift();
      if (answer !== undefined) {
        setTimeout(() => void harness.app.approvals.respond({ worldId: record.worldId, approvalId: record.id, option: answer.option, userId: answer.by ?? record.requesterId }), 1);
      }
      return undefined;
    },
    async resolved() {},
    async tellPrivately() {},
  });
  return { ...harness, questions, answers };
}
