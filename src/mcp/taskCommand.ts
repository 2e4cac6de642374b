// `skillbot mcp tasks [--json]`: the MCP calls running as tasks, in every world, from the store (any instance's).
import { parseArgs } from 'node:util';
import type { CommandOutput } from '../ops/commandOutput.ts';
import type { Store } from '../store/types.ts';
import { TaskBook } from './taskBook.ts';

export async function runTasksCommand(args: string[], deps: { store: Store; output: CommandOutput }): Promise<number> {
  const { values } = parseArgs({ args, options: { json: { type: 'boolean' } }, strict: true });
  const tasks = (await new TaskBook(deps.store).list()).map((task) => ({
    id: task.id,
    server: task.server,
    tool: task.tool,
    world: task.worldId,
    chat: task.chatId,
    state: task.status,
    startedAt: new Date(task.startedAt).toISOString(),
  }));
  if (values.json === true) deps.output.out(JSON.stringify({ tasks }));
  else if (tasks.length === 0) deps.output.out('No MCP task is running.');
  else for (const task of tasks) deps.output.out(`${task.id}  ${task.server}: ${task.tool}  ${task.state}  since ${task.startedAt}  ${task.chat}`);
  return 0;
}
