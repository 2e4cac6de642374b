// doctor's model check: one real, cheap call through the SDK (a one-token answer), so a missing or refused key,
// an unreachable base URL or an unknown model shows before the bot starts rather than on the first message.
import { APIConnectionError, APIError } from '@anthropic-ai/sdk';
import type { Config } from '../config/config.ts';
import type { Check } from '../ops/check.ts';
import { createModelClient, describeProvider } from './modelClient.ts';

const TIMEOUT_MS = 15_000;

/** The variables that hold the provider's credentials, for the fix in a message. */
function credentialNames(config: Config): string {
  if (config.anthropic.provider === 'bedrock') return 'the AWS credentials (AWS_BEARER_TOKEN_BEDROCK, or AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY, a profile or a role)';
  if (config.anthropic.provider === 'vertex') return 'the Google credentials (GOOGLE_APPLICATION_CREDENTIALS or gcloud auth application-default login)';
  return 'ANTHROPIC_API_KEY';
}

export async function modelCheck(config: Config, vertexAuthClient?: unknown): Promise<Check> {
  const name = 'model';
  const { anthropic } = config;
  if (anthropic.provider === 'anthropic' && anthropic.apiKey === undefined && anthropic.baseUrl === undefined) {
    return { verdict: 'FAIL', name, text: 'ANTHROPIC_API_KEY is not set: set it in the environment or in .env (console.anthropic.com → API keys)' };
  }
  const where = describeProvider(anthropic);
  try {
    const client = await createModelClient(anthropic, { maxRetries: 0, timeoutMs: TIMEOUT_MS, vertexAuthClient });
    const reply = await client.messages.create({ model: config.model, max_tokens: 1, messages: [{ role: 'user', content: 'ping' }] });
    return { verdict: 'ok', name, text: `${config.model} answers through ${where} (${reply.usage.input_tokens + reply.usage.output_tokens} tokens spent on this check)` };
  } catch (error) {
    return { verdict: 'FAIL', name, text: explain(error, config, where) };
  }
}

function explain(error: unknown, config: Config, where: string): string {
  if (error instanceof APIConnectionError) {
    const cause = error.cause instanceof Error ? `: ${error.cause.message.split('\n')[0]}` : '';
    // Bedrock's and Vertex's clients fetch credentials before connecting, and report a failure as a connection error.
    if (/credential/i.test(`${error.message}${cause}`)) return `${where}: no usable credentials (${error.message}${cause}); set ${credentialNames(config)}`;
    return `${where} cannot be reached (${error.message}${cause}); check the base URL, the network or a proxy`;
  }
  if (error instanceof APIError) {
    // Anthropic nests the message ({error: {message}}); Bedrock and Vertex errors carry it at the top or nested too.
    const body = error.error as { error?: { message?: string }; message?: string } | undefined;
    const detail = body?.error?.message ?? body?.message ?? error.message;
    if (error.status === 401) return `${where} refused ${credentialNames(config)} (401: ${detail})`;
    if (error.status === 403) return `${where} does not allow this model for these credentials (403: ${detail}); check ${credentialNames(config)} and model access`;
    if (error.status === 404) return `${where} does not know the model "${config.model}" (404: ${detail}); set SKILLBOT_MODEL`;
    return `${where} answered ${error.status ?? 'an error'}: ${detail}`;
  }
  const message = error instanceof Error ? error.message : String(error);
  return `the model client could not be made or used (${message.split('\n')[0]}); check ${credentialNames(config)}`;
}
