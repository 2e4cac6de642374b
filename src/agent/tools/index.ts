// The one list of the tools skillbot itself gives the model: a new tool is one file beside this one (a `Tool` of
// src/tools/contract.ts) and one line here. The order is the order the model sees them in, and every request of
// a world sends the same ones, so the cached prefix holds.
import { scheduleFollowupTool } from '../../routines/followupTool.ts';
import { type Tool, type ToolSet, toolSetOf } from '../../tools/contract.ts';
import type { ToolContext } from '../turnContext.ts';
import { bashTool } from './bash.ts';
import { findSkillsTool } from './findSkills.ts';
import { loadSkillTool } from './loadSkill.ts';
import { readMcpResourceTool } from './readMcpResource.ts';
import { runSkillScriptTool } from './runSkillScript.ts';
import { textEditorTool } from './textEditor.ts';

export const OUR_TOOLS: ReadonlyArray<Tool<ToolContext>> = [
  loadSkillTool,
  runSkillScriptTool,
  findSkillsTool,
  bashTool,
  textEditorTool,
  scheduleFollowupTool,
  readMcpResourceTool,
];

/** Our tools' names: an MCP server's tool of the same name is refused (a model told to call load_skill gets ours). */
export const OUR_TOOL_NAMES: ReadonlySet<string> = new Set(OUR_TOOLS.map((tool) => tool.name));

/** Our tools for one turn. */
export const ourToolSet = (context: ToolContext): ToolSet => toolSetOf(OUR_TOOLS, context);
