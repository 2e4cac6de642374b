// Validates an ExecRequest where it enters the executor, so a malformed one becomes a refusal, not a crash.
import { z } from 'zod';
import { parseEgressAllow } from './addressPolicy.mjs';
import type { ExecRequest } from './types.ts';

const text = z.string().refine((value) => !value.includes('\0'), 'must not contain a NUL byte');
/** A skill id becomes a mount point (/skills/<id>): a plain name only. */
const skillId = text.regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, 'must be a plain name (letters, digits, ".", "_", "-")');

const requestSchema = z
  .object({
    skillDir: text.min(1).optional(),
    skillId: skillId.optional(),
    script: text.min(1).optional(),
    shell: text.min(1).optional(),
    args: z.array(text).default([]),
    skills: z.array(z.object({ id: skillId, dir: text.min(1), expectedHash: text.min(1).optional() })).default([]),
    workspace: z.object({ dir: text.min(1), maxBytes: z.number().int().positive(), maxFiles: z.number().int().positive() }).optional(),
    env: z.record(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'is not a valid variable name'), text).default({}),
    stdin: z.string().optional(),
    timeoutMs: z.number().int().positive().optional(),
    maxOutputBytes: z.number().int().nonnegative().optional(),
    network: z.boolean().optional(),
    egressAllow: z
      .array(text)
      .default([])
      .superRefine((entries, context) => {
        const parsed = parseEgressAllow(entries);
        if ('error' in parsed) context.addIssue({ code: 'custom', message: parsed.error });
      }),
    credentials: z.array(z.object({ host: text.min(1), header: text.min(1), value: text.min(1), env: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/) })).default([]),
    chatId: text.optional(),
    expectedHash: text.min(1).optional(),
    // `signal` is not parsed (the object schema drops it): the executor uses the caller's own AbortSignal.
  })
  .refine((request) => (request.script === undefined) !== (request.shell === undefined), { message: 'must name exactly one of script and shell' })
  .refine((request) => request.script === undefined || request.skillDir !== undefined, { message: 'a script needs its skillDir', path: ['skillDir'] })
  .refine((request) => request.shell === undefined || request.workspace !== undefined, { message: 'a shell command needs a workspace', path: ['workspace'] })
  // The chat decides whose files the workspace holds (the uid its runs take).
  .refine((request) => request.workspace === undefined || request.chatId !== undefined, { message: 'a workspace needs the chatId it belongs to', path: ['chatId'] });

export type CheckedRequest = z.infer<typeof requestSchema>;

export function checkRequest(request: ExecRequest): { ok: true; request: CheckedRequest } | { ok: false; reason: string } {
  const parsed = requestSchema.safeParse(request);
  if (parsed.success) return { ok: true, request: parsed.data };
  const issue = parsed.error.issues[0];
  const where = issue === undefined || issue.path.length === 0 ? 'request' : issue.path.join('.');
  return { ok: false, reason: `invalid exec request: ${where} ${issue?.message ?? 'is malformed'}` };
}
