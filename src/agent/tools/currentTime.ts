// current_time: the time now, in UTC or in a zone the model names (a trial tool: adding one is this file and
// one line in index.ts).
import type { Tool as ToolDefinition } from '@anthropic-ai/sdk/resources/messages';
import { z } from 'zod';
import type { Tool } from '../../tools/contract.ts';
import type { ToolContext } from '../turnContext.ts';

export const CURRENT_TIME = 'current_time';

const definition: ToolDefinition = {
  name: CURRENT_TIME,
  description: 'The date and time now, in UTC or in an IANA time zone (e.g. Europe/Paris).',
  input_schema: { type: 'object', properties: { zone: { type: 'string', description: 'An IANA time zone; default UTC.' } } },
};

const currentTimeInput = z.object({ zone: z.string().min(1).max(100).default('UTC') });

export const currentTimeTool: Tool<ToolContext, z.infer<typeof currentTimeInput>> = {
  name: CURRENT_TIME,
  definition,
  input: currentTimeInput,
  invalid: () => ({ content: `${CURRENT_TIME} takes {"zone": "<IANA time zone>"} or nothing.`, isError: true }),
  progress: () => 'Reading the clock…',
  run: async ({ zone }) => {
    try {
      return { content: `${new Date().toLocaleString('en-GB', { timeZone: zone, dateStyle: 'full', timeStyle: 'long' })} (${zone})` };
    } catch {
      return { content: `"${zone}" is not a time zone I know; use an IANA name such as Europe/Paris.`, isError: true };
    }
  },
};
