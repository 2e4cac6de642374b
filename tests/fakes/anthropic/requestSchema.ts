import { z } from 'zod';

// The shape of POST /v1/messages that the fake relies on. Loose objects: fields the fake does not read
// (metadata, thinking, tool_choice, …) pass through untouched and stay visible in the recorded body.

const cacheControl = z.looseObject({ type: z.literal('ephemeral'), ttl: z.enum(['5m', '1h']).optional() });

const contentBlock = z.looseObject({
  type: z.string(),
  cache_control: cacheControl.nullish(),
});

const textBlock = z.looseObject({
  type: z.literal('text'),
  text: z.string(),
  cache_control: cacheControl.nullish(),
});

const message = z.looseObject({
  role: z.enum(['user', 'assistant', 'system']),
  content: z.union([z.string(), z.array(contentBlock)]),
});

const tool = z.looseObject({ name: z.string(), cache_control: cacheControl.nullish() });

export const messagesRequestSchema = z.looseObject({
  model: z.string().min(1),
  max_tokens: z.number().int().nonnegative(),
  messages: z.array(message).min(1),
  system: z.union([z.string(), z.array(textBlock)]).optional(),
  tools: z.array(tool).optional(),
  stream: z.boolean().optional(),
  cache_control: cacheControl.nullish(),
});

export type CacheControl = z.infer<typeof cacheControl>;
export type RequestContentBlock = z.infer<typeof contentBlock>;
export type RequestMessage = z.infer<typeof message>;
export type RequestTool = z.infer<typeof tool>;
export type MessagesRequest = z.infer<typeof messagesRequestSchema>;

/** Zod's issues as one line, the way the API names the offending field. */
export function describeIssues(error: z.ZodError): string {
  return error.issues.map((issue) => `${issue.path.join('.') || 'body'}: ${issue.message}`).join('; ');
}

/** A message's content as blocks: the API treats a string as one text block. */
export function messageBlocks(message: RequestMessage): RequestContentBlock[] {
  return typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : message.content;
}
