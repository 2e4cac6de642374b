// `credentials: [{host, header, value, env}]` per world and `defaults` (docs/contract.md, "Who may use the bot,
// limits, credentials"): secrets the egress proxy puts on requests to `host`, which the sandbox never holds.
import { z } from 'zod';
import { ConfigError } from './envVars.ts';

/** One credential, its `value` read from the bot's environment. */
export interface Credential {
  /** An exact host name, or `*.example.com` (any name under example.com, not example.com itself). */
  host: string;
  /** The request header the proxy sets (replacing what the request carried). */
  header: string;
  value: string;
  /** The variable that holds the placeholder `skillbot-credential-<env>` inside the sandbox. */
  env: string;
}

const LABEL = '[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?';
const HOST = new RegExp(`^(?:\\*\\.)?(?:${LABEL}\\.)*${LABEL}$`);

export const credentialsSchema = z
  .array(
    z
      .object({
        host: z
          .string()
          .transform((host) => host.toLowerCase())
          .refine((host) => HOST.test(host) && !/^[\d.]+$/.test(host), 'must be a host name like api.github.com or *.example.com (no scheme, port or address)'),
        // An HTTP token (RFC 9110): what Node accepts as a header name.
        header: z.string().regex(/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/, 'must be a header name like Authorization'),
        value: z.string().min(1),
        env: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be a variable name like GITHUB_TOKEN'),
      })
      .strict(),
  )
  .superRefine((entries, context) => {
    const seen = new Set<string>();
    for (const [index, entry] of entries.entries()) {
      if (seen.has(entry.env)) context.addIssue({ code: 'custom', path: [index, 'env'], message: `"${entry.env}" names two credentials` });
      seen.add(entry.env);
    }
  });

export type CredentialsInput = z.infer<typeof credentialsSchema>;

const VARIABLE = /\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

/** `${VAR}` in each value from the bot's environment; an unset (or empty) one stops the start with one line naming it. */
export function expandCredentials(input: CredentialsInput | undefined, env: NodeJS.ProcessEnv, where: string): Credential[] | undefined {
  return input?.map((entry, index) => ({
    ...entry,
    value: entry.value.replace(VARIABLE, (_match, name: string) => {
      const value = env[name];
      if (value !== undefined && value !== '') return value;
      throw new ConfigError(`${where}.credentials.${index}.value uses \${${name}}, which is not set in the bot's environment: set it, or remove the credential.`);
    }),
  }));
}

/** The worlds of the file with their credentials' values expanded. */
export function worldsWithCredentials<W extends { credentials?: CredentialsInput }>(worlds: Record<string, W> | undefined, env: NodeJS.ProcessEnv): Record<string, W> {
  return Object.fromEntries(
    Object.entries(worlds ?? {}).map(([id, world]) => {
      const credentials = expandCredentials(world.credentials, env, `worlds.${id}`);
      return [id, credentials === undefined ? world : { ...world, credentials }];
    }),
  );
}
