// A stand-in for the bot: runs one skill script through the executor, prints "started", and waits for it.
// tests/exec/sandbox.test.ts kills this process to show the sandbox dies with the bot.
import { createExecutor } from '../../src/exec/executor.ts';

const [skillDir, script] = process.argv.slice(2);
if (skillDir === undefined || script === undefined) throw new Error('usage: botRunner.ts SKILL_DIR SCRIPT');
const executor = createExecutor({ timeoutMs: 120_000 });
await executor.sandbox();
process.stdout.write('started\n');
await executor.run({ skillDir, script });
