import type { MessageParam } from '@anthropic-ai/sdk/resources/messages';
import type { WorldSettings } from '../config.ts';
import type { Executor } from '../exec/types.ts';
import type { ApprovalRuntime } from '../hitl/approvals.ts';
import type { AuditLog } from '../hitl/audit.ts';
import type { Grants } from '../hitl/grants.ts';
import type { Logger } from '../log.ts';
import type { SkillSnapshot } from '../skills/types.ts';
import type { Store } from '../store/types.ts';

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
}

/** Everything a tool call needs to know about the turn it belongs to. */
export interface TurnContext {
  turnId: string;
  worldId: string;
  chatId: string;
  requesterId: string;
  settings: WorldSettings;
  /** The registry snapshot taken when the turn started: a reload never changes it mid-turn. */
  snapshot: SkillSnapshot;
  /** The chat's history as the model sees it this turn (preflight tools read recent messages from it). */
  history: readonly MessageParam[];
  progress(text: string): void;
  /**
   * A key for the turn's next approval question, stable when the same message is re-run (after a crash or a
   * hand-over), so the re-run resumes the question already asked instead of asking again.
   */
  nextApprovalKey(): string;
}
