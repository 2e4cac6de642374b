// The built-in tools a preflight step may name (`tool: NAME`). Kept free of imports so skill validation can
// check names against it without pulling in the lifecycle: an unknown tool is a validation error.

export const BUILTIN_PREFLIGHT_TOOLS = ['recent_messages', 'skill_list', 'current_time'] as const;

export type BuiltinPreflightTool = (typeof BUILTIN_PREFLIGHT_TOOLS)[number];

export function isBuiltinPreflightTool(name: string): name is BuiltinPreflightTool {
  return (BUILTIN_PREFLIGHT_TOOLS as readonly string[]).includes(name);
}
