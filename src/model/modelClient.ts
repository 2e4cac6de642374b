// The one place the model client is built, for the provider the config names (ANTHROPIC_PROVIDER).
import Anthropic from '@anthropic-ai/sdk';
import type { AnthropicSettings } from '../config/config.ts';

export interface ModelClientOptions {
  /** Retries: one policy, in src/agent/modelCall.ts; doctor's single call takes the SDK's own. */
  maxRetries?: number;
  /** Request timeout (ms); the SDK's default (10 min) otherwise. */
  timeoutMs?: number;
  /**
   * Vertex only: a google-auth-library AuthClient to sign with instead of Application Default Credentials
   * (GOOGLE_APPLICATION_CREDENTIALS, gcloud, the metadata server). Tests hand one with a fixed token.
   */
  vertexAuthClient?: unknown;
}

/**
 * Anthropic's own client, or the SDK's Bedrock or Vertex client (imported only when chosen: neither is loaded
 * for the first-party API). All three serve the same Messages API (`messages.stream`, `messages.create`), which
 * is all the agent uses, so the result is typed as the first-party client and the agent needs no change.
 */
export async function createModelClient(settings: AnthropicSettings, options: ModelClientOptions = {}): Promise<Anthropic> {
  const common = {
    maxRetries: options.maxRetries ?? 0,
    ...(options.timeoutMs === undefined ? {} : { timeout: options.timeoutMs }),
  };
  if (settings.provider === 'bedrock') {
    const { AnthropicBedrock } = await import('@anthropic-ai/bedrock-sdk');
    // Credentials: AWS_BEARER_TOKEN_BEDROCK (a Bedrock API key), else the AWS chain (AWS_ACCESS_KEY_ID and
    // AWS_SECRET_ACCESS_KEY, a profile, an instance or task role), read by the SDK itself.
    const client = new AnthropicBedrock({
      ...common,
      awsRegion: settings.region,
      ...(settings.baseUrl === undefined ? {} : { baseURL: settings.baseUrl }),
    });
    return client as unknown as Anthropic;
  }
  if (settings.provider === 'vertex') {
    const { AnthropicVertex } = await import('@anthropic-ai/vertex-sdk');
    const client = new AnthropicVertex({
      ...common,
      region: settings.region ?? null,
      projectId: settings.projectId ?? null,
      ...(settings.baseUrl === undefined ? {} : { baseURL: settings.baseUrl }),
      ...(options.vertexAuthClient === undefined ? {} : { authClient: options.vertexAuthClient as never }),
    });
    return client as unknown as Anthropic;
  }
  return new Anthropic({
    ...common,
    // Without a key (a local proxy, or a test server) a placeholder, never the SDK's own credential lookup.
    apiKey: settings.apiKey ?? 'none',
    baseURL: settings.baseUrl ?? null,
  });
}

/** How the model is reached, for logs and doctor: `anthropic`, `bedrock (us-east-1)`, `vertex (my-project, us-east5)`. */
export function describeProvider(settings: AnthropicSettings): string {
  if (settings.provider === 'bedrock') return `Amazon Bedrock (${settings.region ?? '?'})`;
  if (settings.provider === 'vertex') return `Google Vertex AI (${settings.projectId ?? '?'}, ${settings.region ?? '?'})`;
  return settings.baseUrl === undefined ? 'the Anthropic API' : `the Anthropic API at ${settings.baseUrl}`;
}
