// The one shape every tool the model can call has, and the one shape a group of them has for a turn. A low floor:
// the agent, MCP and routines import it, and it imports nothing of theirs, so a tool written anywhere is run the
// same way and the engine runs a list of tool sets without knowing whose they are.
import type { ImageBlockParam, TextBlockParam, ToolUnion } from '@anthropic-ai/sdk/resources/messages';
import type { z } from 'zod';

/** What a tool call gives back to the model. */
export interface ToolResult {
  content: string;
  isError?: boolean;
  /** The result as blocks (an MCP tool's text and images); `content` is then its text alone, for logs. */
  blocks?: Array<TextBlockParam | ImageBlockParam>;
}

/**
 * One tool: its name, what the model sees of it, its input's schema, the line a person reads while it runs, and the
 * work. `Context` is what a call gets of its turn (the agent's tools: `ToolContext` in src/agent/turnContext.ts).
 * Methods, not function properties, so a tool that needs only part of a context fits a list that gives all of it.
 */
export interface Tool<Context, Input = unknown> {
  readonly name: string;
  /** Sent with every request: keep it constant (one object), so it stays inside the cached prefix. */
  readonly definition: ToolUnion;
  readonly input: z.ZodType<Input>;
  /** What the model reads when its input does not fit the schema. */
  invalid(error: z.ZodError): ToolResult;
  /** What a person sees while it runs ("Loading release-notes…"); `input` is the model's, not yet checked. */
  progress(input: unknown): string;
  /** Whether the model is offered it this turn (absent: always). A call to one not offered still reaches `run`. */
  offered?(context: Context): boolean;
  run(input: Input, context: Context): Promise<ToolResult>;
}

/** A turn's group of tools (ours, the world's MCP servers'): the engine runs a list of them and no special case. */
export interface ToolSet {
  /** The definitions for the next request (a set may change once in a turn: MCP's, when a person connects a server). */
  definitions(): ToolUnion[];
  owns(name: string): boolean;
  progress(name: string, input: unknown): string;
  run(name: string, input: unknown): Promise<ToolResult>;
}

/** What the model reads when it calls a tool nobody offers: the tools that are. */
function unknownTool(name: string, offered: readonly ToolUnion[]): ToolResult {
  const names = offered.flatMap((definition) => ('name' in definition ? [definition.name] : []));
  return { content: `Unknown tool "${name}". Available tools: ${names.join(', ')}.`, isError: true };
}

/** A list of tools bound to one turn's context: what it offers, and each call checked against the tool's schema. */
export function toolSetOf<Context>(tools: readonly Tool<Context>[], context: Context): ToolSet {
  const byName = new Map(tools.map((tool) => [tool.name, tool]));
  const definitions = tools.filter((tool) => tool.offered?.(context) ?? true).map((tool) => tool.definition);
  return {
    definitions: () => definitions,
    owns: (name) => byName.has(name),
    progress: (name, input) => byName.get(name)?.progress(input) ?? 'Calling a tool…',
    async run(name, input) {
      const tool = byName.get(name);
      if (tool === undefined) return unknownTool(name, definitions);
      const parsed = tool.input.safeParse(input);
      return parsed.success ? tool.run(parsed.data, context) : tool.invalid(parsed.error);
    },
  };
}

/** Several sets as one: the first that owns a name runs it; a name nobody owns is a result naming what is offered. */
export function joinToolSets(sets: readonly ToolSet[]): ToolSet {
  const owner = (name: string) => sets.find((set) => set.owns(name));
  return {
    definitions: () => sets.flatMap((set) => set.definitions()),
    owns: (name) => owner(name) !== undefined,
    progress: (name, input) => owner(name)?.progress(name, input) ?? 'Calling a tool…',
    run(name, input) {
      const set = owner(name);
      if (set !== undefined) return set.run(name, input);
      return Promise.resolve(unknownTool(name, sets.flatMap((each) => each.definitions())));
    },
  };
}
