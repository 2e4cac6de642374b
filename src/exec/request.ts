// Validates an ExecRequest where it enters the executor, so a malformed one becomes a refusal, not a crash.
import { z } from 'zod';
import type { ExecRequest } from './types.ts';

const text = z.string().refine((value) => !value.includes('\0'), 'must not contain a NUL byte');

const requestSchema = z.object({
  skillDir: text.min(1),
  script: text.min(1),
  args: z.array(text).default([]),
  env: z.record(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'is not a valid variable name'), text).default({}),
  stdin: z.string().optional(),
  timeoutMs: z.number().int().positive().optional(),
  maxOutputBytes: z.number().int().nonnegative().optional(),
  network: z.boolean().optional(),
  chatId: text.optional(),
  expectedHash: text.min(1).optional(),
  inputDir: text.min(1).optional(),
  outputDir: text.min(1).optional(),
  // `signal` is not parsed (the object schema drops it): the executor uses the caller's own AbortSignal.
});

export type CheckedRequest = z.infer<typeof requestSchema>;

export function checkRequest(request: ExecRequest): { ok: true; request: CheckedRequest } | { ok: false; reason: string } {
  const parsed = requestSchema.safeParse(request);
  if (parsed.success) return { ok: true, request: parsed.data };
  const issue = parsed.error.issues[0];
  const where = issue === undefined || issue.path.length === 0 ? 'request' : issue.path.join('.');
  return { ok: false, reason: `invalid exec request: ${where} ${issue?.message ?? 'is malformed'}` };
}
