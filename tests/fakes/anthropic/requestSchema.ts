import { z } from 'zod';

// The shape of POST /v1/messages that the fake relies on. Loose objects: fields the fake does not read
// (metadata, thinking, tool_choice, …) pass through untouched and stay visible in the recorded body.

const cacheControl = z.looseObject({ type: z.literal('ephemeral'), ttl: z.enum(['5m', '1h']).optional() });

const base64 = z.string().min(1).regex(/^[A-Za-z0-9+/]+={0,2}$/, 'must be base64');
/** Image and document blocks as the API accepts them (base64 sources; the media types it reads). */
const imageSource = z.object({ type: z.literal('base64'), media_type: z.enum(['image/png', 'image/jpeg', 'image/gif', 'image/webp']), data: base64 });
const documentSource = z.union([
  z.object({ type: z.literal('base64'), media_type: z.literal('application/pdf'), data: base64 }),
  z.object({ type: z.literal('text'), media_type: z.literal('text/plain'), data: z.string() }),
]);

const contentBlock = z
  .looseObject({
    type: z.string(),
    cache_control: cacheControl.nullish(),
  })
  .superRefine((block, ctx) => {
    const check = (schema: z.ZodType, value: unknown) => {
      const parsed = schema.safeParse(value);
      for (const issue of parsed.error?.issues ?? []) ctx.addIssue({ code: 'custom', path: ['source', ...issue.path.map(String)], message: issue.message });
    };
    if (block.type === 'image') check(imageSource, block.source);
    if (block.type === 'document') check(documentSource, block.source);
    // A tool result may carry text and images (the API takes no other kind there).
    if (block.type === 'tool_result' && Array.isArray(block.content)) {
      for (const [index, part] of (block.content as Array<{ type?: unknown; source?: unknown }>).entries()) {
        if (part.type === 'image') {
          const parsed = imageSource.safeParse(part.source);
          for (const issue of parsed.error?.issues ?? []) ctx.addIssue({ code: 'custom', path: ['content', index, 'source', ...issue.path.map(String)], message: issue.message });
        } else if (part.type !== 'text') ctx.addIssue({ code: 'custom', path: ['content', index, 'type'], message: `a tool result cannot hold a ${String(part.type)} block` });
      }
    }
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
