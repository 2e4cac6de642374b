import type { WorldSettings } from '../config.ts';
import type { Executor } from '../exec/types.ts';
import type { ApprovalRuntime } from '../hitl/approvals.ts';
import type { AuditLog } from '../hitl/audit.ts';
import type { Grants } from '../hitl/grants.ts';
import type { Logger } from '../log.ts';
import type { SkillSnapshot } from '../skills/types.ts';

/** The long-lived parts a turn's tools use. */
export interface ToolDeps {
  executor: Executor;
  approvals: ApprovalRuntime;
  grants: Grants;
  audit: AuditLog;
  scriptTimeoutMs: number;
  logger: Logger;
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
  progress(text: string): void;
}
