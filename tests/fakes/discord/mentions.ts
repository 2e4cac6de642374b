// Who a message would notify, by Discord's allowed_mentions rules: what the bot must never cause.

export interface AllowedMentions {
  parse?: string[];
  users?: string[];
  roles?: string[];
  replied_user?: boolean;
}

/**
 * Pings a message body causes: `everyone` (for @everyone and @here), `user:<id>`, `role:<id>`. Without
 * `allowed_mentions` Discord parses every kind found in the content.
 */
export function pingsOf(content: string, allowed: AllowedMentions | undefined): string[] {
  const parse = new Set(allowed === undefined ? ['everyone', 'users', 'roles'] : (allowed.parse ?? []));
  const users = new Set(allowed?.users ?? []);
  const roles = new Set(allowed?.roles ?? []);
  const pings: string[] = [];
  if (parse.has('everyone') && /@(everyone|here)\b/.test(content)) pings.push('everyone');
  for (const match of content.matchAll(/<@!?(\d+)>/g)) {
    const id = match[1] ?? '';
    if (parse.has('users') || users.has(id)) pings.push(`user:${id}`);
  }
  for (const match of content.matchAll(/<@&(\d+)>/g)) {
    const id = match[1] ?? '';
    if (parse.has('roles') || roles.has(id)) pings.push(`role:${id}`);
  }
  return [...new Set(pings)];
}
