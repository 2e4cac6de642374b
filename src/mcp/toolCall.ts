// One MCP tool call: arguments checked against the tool's input schema before anyone is asked, a person's
// approval (or a grant, or the world's mcpNoApproval), the call bounded by MCP_TIMEOUT_MS and ended by Stop
// (the SDK sends notifications/cancelled), the result as the model reads it, and an audit entry.
import { createHash } from 'node:crypto';
import type { JsonSchemaType, JsonSchemaValidator } from '@modelcontextprotocol/client';
import type { ToolResult } from '../tools/contract.ts';
import { type AuditLog, authorize, type ApprovalRuntime, type Grants, notRunSentence, routineGrantChat } from '../approvals/index.ts';
import type { Logger } from '../ops/log.ts';
import { mcpQuestion } from './approvalCard.ts';
import { skipsApproval } from '../config/mcpSettings.ts';
import { progressLine, ProgressThrottle } from './callProgress.ts';
import { type Connected, type NotConnected, oneLine } from './connections.ts';
import { isTimeout, isUnauthorized } from './mcpErrors.ts';
import { cleanOutcome } from './results.ts';
import { LinearSchemaValidator } from './schemaValidator.ts';
import type { McpToolEntry } from './toolCatalog.ts';
import { definitionHash, definitionKey, definitionOf, type GrantedDefinitions } from './toolDefinition.ts';
import { grantSubject } from './toolNames.ts';

export interface CallDeps {
  approvals: ApprovalRuntime;
  grants: Grants;
  audit: AuditLog;
  logger: Logger;
  timeoutMs: number;
  arguments: ArgumentChecker;
  /** The definitions granted "for this thread", so a changed tool's new card can say what changed. */
  definitions: GrantedDefinitions;
}

export interface CallTurn {
  turnId: string;
  worldId: string;
  chatId: string;
  requesterId: string;
  /** A routine's run: its grants are the routine's (AuthorizeInput.routineId). */
  routineId?: string;
  approvalTimeoutMs: number;
  mcpNoApproval: readonly string[];
  signal: AbortSignal;
  nextApprovalKey(): string;
  progress(text: string): void;
}

const failure = (content: string): ToolResult => ({ content, isError: true });

/** How a call reaches its server for the requester: connect, sign in when it answers 401, start afresh. */
export interface ServerLink {
  connect(): Promise<Connected | NotConnected>;
  /** Sends the person the link privately and waits for them; then connects again. */
  signIn(url: string): Promise<Connected | NotConnected>;
  /** Drops the connection (the server said 401 mid-way: the tokens were revoked). */
  reset(): Promise<void>;
}

/** Arguments checked against each tool's input schema (Ajv with linear-time patterns), each schema compiled once. */
export class ArgumentChecker {
  private readonly validator = new LinearSchemaValidator();
  /** Compiling costs milliseconds; a tool set keeps its entries while its server's list stands. */
  private readonly compiled = new WeakMap<McpToolEntry, JsonSchemaValidator<unknown>>();

  /** The arguments as the tool's schema wants them, or one sentence saying what is wrong (nobody is asked then). */
  check(entry: McpToolEntry, input: unknown): { ok: true; args: Record<string, unknown> } | { ok: false; why: string } {
    const args = input === undefined || input === null ? {} : input;
    if (typeof args !== 'object' || Array.isArray(args)) return { ok: false, why: 'the arguments must be a JSON object' };
    let check = this.compiled.get(entry);
    try {
      check ??= this.validator.getValidator({ ...entry.inputSchema, type: 'object' } as JsonSchemaType);
    } catch (error) {
      return { ok: false, why: `the server's input schema for this tool cannot be used (${oneLine((error as Error).message)})` };
    }
    this.compiled.set(entry, check);
    const result = check(args);
    return result.valid ? { ok: true, args: args as Record<string, unknown> } : { ok: false, why: `the arguments do not match the tool's input schema: ${oneLine(result.errorMessage)}` };
  }
}

export const argumentsHash = (args: Record<string, unknown>): string => createHash('sha256').update(JSON.stringify(args)).digest('hex');

export async function callMcpTool(
  deps: CallDeps,
  turn: CallTurn,
  entry: McpToolEntry,
  input: unknown,
  link: ServerLink,
): Promise<ToolResult> {
  const checked = deps.arguments.check(entry, input);
  if (!checked.ok) return failure(`${entry.fullName} was not called: ${checked.why}.`);
  const args = checked.args;
  const item = { kind: 'tool' as const, path: entry.fullName, args: [JSON.stringify(args)] };
  // A grant covers this definition of the tool (server, tool): a server that changes it is asked about again.
  const definition = definitionOf(entry);
  const subject = grantSubject(entry.server, entry.tool);
  const skill = { id: subject, hash: definitionHash(definition) };
  const key = definitionKey(turn.worldId, turn.routineId === undefined ? turn.chatId : routineGrantChat(turn.routineId), subject, turn.requesterId);
  const changed = deps.definitions.changes(key, definition);
  let decision: { approvalId?: string; decidedBy?: string; outcome: string } = { outcome: 'not_asked' };
  // A tool its server says needs a person every time is asked even where the world lists it in mcpNoApproval.
  if (entry.requiresUserInteraction || !skipsApproval(turn.mcpNoApproval, entry.server, entry.tool)) {
    turn.progress(`Waiting for approval to call ${entry.fullName}…`);
    const decided = await authorize(
      { approvals: deps.approvals, grants: deps.grants, audit: deps.audit },
      {
        worldId: turn.worldId,
        chatId: turn.chatId,
        requesterId: turn.requesterId,
        skill,
        items: [item],
        timeoutMs: turn.approvalTimeoutMs,
        turnId: turn.turnId,
        resumeKey: turn.nextApprovalKey(),
        subject: 'mcp_tool',
        question: (grant) => mcpQuestion(entry, args, grant, changed),
        ...(turn.routineId === undefined ? {} : { routineId: turn.routineId }),
        ...(entry.requiresUserInteraction ? { options: ['yes_once', 'no'] as const } : {}),
      },
    );
    if (!decided.allowed) return failure(notRunSentence(decided.outcome, decided.decidedBy).replace('The script did not run', `The tool call ${entry.fullName} did not run`));
    if (decided.outcome === 'yes_in_session') deps.definitions.remember(key, definition);
    decision = decided;
  }
  turn.progress(`Calling ${entry.fullName}…`);
  const started = performance.now();
  const outcome = await invoke(deps, turn, entry, args, link);
  await deps.audit.record({
    at: Date.now(),
    kind: 'run',
    worldId: turn.worldId,
    chatId: turn.chatId,
    skillId: entry.fullName,
    skillHash: skill.hash,
    // The arguments' hash only: what they were is on the question's own audit record.
    items: [{ kind: 'tool', path: entry.fullName, args: [`sha256:${argumentsHash(args)}`] }],
    requestedBy: turn.requesterId,
    outcome: outcome.status,
    durationMs: Math.round(performance.now() - started),
    turnId: turn.turnId,
    ...(decision.approvalId === undefined ? {} : { approvalId: decision.approvalId }),
    ...(decision.decidedBy === undefined ? {} : { decidedBy: decision.decidedBy }),
    ...(outcome.status === 'ok' ? {} : { reason: outcome.result.content.slice(0, 500) }),
  });
  deps.logger.info({ chatId: turn.chatId, turnId: turn.turnId, tool: entry.fullName, status: outcome.status, ms: Math.round(performance.now() - started) }, 'MCP tool called');
  return outcome.result;
}

async function invoke(
  deps: CallDeps,
  turn: CallTurn,
  entry: McpToolEntry,
  args: Record<string, unknown>,
  link: ServerLink,
  retried = false,
): Promise<{ status: 'ok' | 'tool_error' | 'failed' | 'timeout' | 'stopped'; result: ToolResult }> {
  let connection = await link.connect();
  if (!connection.ok && connection.signIn !== undefined) connection = await link.signIn(connection.signIn.url);
  if (!connection.ok) return { status: 'failed', result: failure(`${entry.fullName} could not be called: ${connection.why}.`) };
  // A signal of the call's own, tied to the turn's: the SDK leaves its listener on the signal it is given.
  const call = new AbortController();
  const stop = () => call.abort(turn.signal.reason);
  turn.signal.addEventListener('abort', stop, { once: true });
  if (turn.signal.aborted) stop();
  // Sending a progress token (the SDK does, with onprogress) lets the server say how far it is.
  const progress = new ProgressThrottle((line) => turn.progress(line));
  try {
    const result = await connection.client.callTool(
      { name: entry.tool, arguments: args },
      { signal: call.signal, timeout: deps.timeoutMs, onprogress: (update) => progress.push(progressLine(entry.server, entry.tool, update)) },
    );
    const { outcome, hiddenRemoved } = cleanOutcome(result);
    if (hiddenRemoved > 0) deps.logger.warn({ tool: entry.fullName, hiddenRemoved }, 'hidden characters (Unicode tags, zero-width, bidi controls) removed from an MCP result');
    return { status: outcome.isError === true ? 'tool_error' : 'ok', result: outcome };
  } catch (error) {
    // Tokens revoked since the connection opened: once, start afresh (a refresh, or a new sign-in).
    if (isUnauthorized(error) && !retried) {
      await link.reset();
      return invoke(deps, turn, entry, args, link, true);
    }
    const message = oneLine((error as Error).message);
    const cutOff = connection.cutOff();
    if (cutOff !== undefined) return { status: 'failed', result: failure(`${entry.fullName} failed: the MCP server ${entry.server} was cut off (${cutOff}), and is left down for now.`) };
    if (turn.signal.aborted) return { status: 'stopped', result: failure(`${entry.fullName} was cancelled: the person stopped the turn.`) };
    if (isTimeout(error)) {
      return { status: 'timeout', result: failure(`${entry.fullName} did not answer within ${Math.round(deps.timeoutMs / 1000)} seconds (MCP_TIMEOUT_MS), so the call was cancelled.`) };
    }
    return { status: 'failed', result: failure(`${entry.fullName} failed: the MCP server ${entry.server} answered with an error or something unreadable (${message}).`) };
  } finally {
    progress.stop();
    turn.signal.removeEventListener('abort', stop);
  }
}
