import { z } from 'zod';
import { parseEgressAllow } from '../exec/addressPolicy.mjs';

/** An `egressAllow` list (a world's, or install's): CIDR ranges and host names, checked as the proxy reads them. */
export const egressAllowSchema = z.array(z.string().min(1)).superRefine((entries, context) => {
  const parsed = parseEgressAllow(entries);
  if ('error' in parsed) context.addIssue({ code: 'custom', message: parsed.error });
});
