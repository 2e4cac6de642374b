// Which service answers for Claude (ANTHROPIC_PROVIDER) and where: read from the environment, no SDK loaded.
import { choiceVar, ConfigError, optional, urlVar } from './envVars.ts';

/** Who serves Claude: Anthropic's API, or the same models through Amazon Bedrock or Google Vertex AI. */
export type ModelProvider = 'anthropic' | 'bedrock' | 'vertex';

export interface AnthropicSettings {
  provider: ModelProvider;
  apiKey?: string;
  baseUrl?: string;
  /** Bedrock: AWS_REGION (else AWS_DEFAULT_REGION); Vertex: CLOUD_ML_REGION. */
  region?: string;
  /** Vertex: ANTHROPIC_VERTEX_PROJECT_ID. */
  projectId?: string;
}

/** ANTHROPIC_PROVIDER and the variables its choice needs; a missing one is a ConfigError naming it. */
export function anthropicSettings(env: NodeJS.ProcessEnv): AnthropicSettings {
  const provider = choiceVar(env, 'ANTHROPIC_PROVIDER', ['anthropic', 'bedrock', 'vertex'] as const, 'anthropic');
  const apiKey = optional(env.ANTHROPIC_API_KEY);
  if (provider === 'bedrock') {
    const region = optional(env.AWS_REGION) ?? optional(env.AWS_DEFAULT_REGION);
    if (region === undefined) throw new ConfigError('ANTHROPIC_PROVIDER=bedrock needs AWS_REGION (the Bedrock region, e.g. us-east-1); see .env.example.');
    return { provider, region, baseUrl: urlVar(env, 'ANTHROPIC_BEDROCK_BASE_URL') };
  }
  if (provider === 'vertex') {
    const region = optional(env.CLOUD_ML_REGION);
    const projectId = optional(env.ANTHROPIC_VERTEX_PROJECT_ID);
    if (region === undefined) throw new ConfigError('ANTHROPIC_PROVIDER=vertex needs CLOUD_ML_REGION (e.g. us-east5, or global); see .env.example.');
    if (projectId === undefined) throw new ConfigError('ANTHROPIC_PROVIDER=vertex needs ANTHROPIC_VERTEX_PROJECT_ID (the Google Cloud project); see .env.example.');
    return { provider, region, projectId, baseUrl: urlVar(env, 'ANTHROPIC_VERTEX_BASE_URL') };
  }
  return { provider, apiKey, baseUrl: urlVar(env, 'ANTHROPIC_BASE_URL') };
}
