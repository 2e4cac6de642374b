// Runs the Anthropic fake in a worker thread so the bench's core and the fake use separate cores.
import { parentPort, workerData } from 'node:worker_threads';
import { startFakeAnthropic, textReply } from '../tests/fakes/anthropic.ts';

const fake = await startFakeAnthropic({ brain: () => textReply((workerData as { reply: string }).reply) });
parentPort?.postMessage({ url: fake.url });
parentPort?.on('message', async (message: string) => {
  if (message === 'stats') parentPort?.postMessage({ stats: fake.cacheStats(), requests: fake.requests.length });
  if (message === 'close') {
    await fake.close();
    parentPort?.close();
  }
});
