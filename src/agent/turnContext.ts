import type { MessageParam } from '@anthropic-ai/sdk/resources/messages';
import type { FileLimits, WorldSettings } from '../config/config.ts';
import type { Executor, HashFolder } from '../exec/types.ts';
import type { ApprovalRuntime, AuditLog, Grants } from '../approvals/index.ts';
import type { Logger } from '../ops/log.ts';
import type { Metrics } from '../ops/metrics.ts';
import type { IncomingMessage, OutgoingFile, TurnSink } from '../platform/port.ts';
import type { InputFile } from './inputFiles.ts';
import type { Skill, SkillSnapshot } from '../skills/types.ts';
import type { Store } from '../store/types.ts';
import type { ChatWorkspace } from '../workspace/chatWorkspaces.ts';
import type { FollowupRules } from '../routines/followupTool.ts';
import type { McpTools } from '../mcp/mcpTools.ts';
import type { TurnServerSkills } from '../mcp/serverSkillCatalog.ts';

/** The long-lived parts a turn's tools use. */
export interface ToolDeps {
  executor: Executor;
  approvals: ApprovalRuntime;
  grants: Grants;
  audit: AuditLog;
  scriptTimeoutMs: number;
  logger: Logger;
  /** Per-chat skill state (active skills, their hooks) lives here. */
  store: Store;
  /**
   * The registry's folder hash (SkillRegistry.hashFolder). With it, a question covers the skill's content as
   * on disk when asked, so an edit since the turn began is asked about, not run under an older grant.
   */
  hashFolder?: HashFolder;
  /** Counts skill activations by skill (absent in tests that build the tools alone). */
  metrics?: Metrics;
  /** The routine rules `schedule_followup` adds follow-ups with (src/routines); absent: the tool is not offered. */
  followups?: FollowupRules;
  /** The world's MCP servers (src/mcp): their tools are a tool set beside ours; read_mcp_resource reads through it. */
  mcp?: McpTools;
}

/** What each of the agent's tools gets with a call (a `Tool<ToolContext>` of src/tools/contract.ts). */
export interface ToolContext {
  deps: ToolDeps;
  turn: TurnContext;
  /** The catalog lists every skill the model may use here (else find_skills is offered). */
  catalogComplete: boolean;
}

/** Everything a tool call needs to know about the turn it belongs to. */
export interface TurnContext {
  turnId: string;
  worldId: string;
  chatId: string;
  requesterId: string;
  /** Set on a routine's run (IncomingMessage.origin): approvals offer "yes for this routine" (AuthorizeInput.routineId). */
  routineId?: string;
  settings: WorldSettings;
  /** The MCP servers this world may use (configured and in its `mcp` list), by name; absent: none. */
  mcpServers?: readonly string[];
  /** The registry snapshot taken when the turn started: a reload never changes it mid-turn. */
  snapshot: SkillSnapshot;
  /** The skills the world's MCP servers serve, as listed when the turn started (absent: none). */
  serverSkills?: TurnServerSkills<Skill>;
  /** The chat's history as the model sees it this turn (preflight tools read recent messages from it). */
  history: readonly MessageParam[];
  /** Aborted when a person stops the turn: skill processes of the turn are ended with it. */
  signal: AbortSignal;
  /** The files of the person's message, under the names they got in the workspace. */
  files: readonly InputFile[];
  /**
   * The chat's workspace (/workspace in every run of the chat): its folder and bounds. The folder may not exist
   * yet: whatever reads or writes it (a run, the editor, a card that shows its files) awaits openWorkspace() first.
   */
  workspace: ChatWorkspace;
  /** Makes the workspace ready (made, restored from the store, marked used) once per turn; a plain turn never calls it. */
  openWorkspace(): Promise<ChatWorkspace>;
  fileLimits: FileLimits;
  /** Posts a file a script made in the chat; absent where the surface cannot take files. */
  upload?(file: OutgoingFile): Promise<void>;
  progress(text: string): void;
  /** A line the person should read under the answer (a file that was not delivered). */
  notice(text: string): void;
  /**
   * A key for the turn's next approval question, stable when the same message is re-run (after a crash or a
   * hand-over), so the re-run resumes the question already asked instead of asking again.
   */
  nextApprovalKey(): string;
}

/** A turn's context from its message and sink (what of the turn a tool sees) and the parts the engine opened. */
export function turnContextOf(
  from: { message: IncomingMessage; sink: TurnSink; log: Logger; turnId: string; signal: AbortSignal; notices: string[] },
  parts: Pick<TurnContext, 'settings' | 'snapshot' | 'history' | 'workspace' | 'openWorkspace' | 'files' | 'mcpServers' | 'fileLimits' | 'serverSkills'>,
): TurnContext {
  const { message, sink, log, turnId, notices } = from;
  let approvalsAsked = 0;
  return {
    ...parts,
    turnId,
    nextApprovalKey: () => `${message.chatId}/${turnId}/${approvalsAsked++}`,
    worldId: message.worldId,
    chatId: message.chatId,
    requesterId: message.userId,
    ...(message.origin?.kind === 'routine' ? { routineId: message.origin.id } : {}),
    signal: from.signal,
    ...(sink.upload ? { upload: sink.upload.bind(sink) } : {}),
    notice: (text) => void notices.push(text),
    progress: (text) => void Promise.resolve(sink.progress(text)).catch((error: unknown) => log.warn({ err: error }, 'progress update failed')),
  };
}
