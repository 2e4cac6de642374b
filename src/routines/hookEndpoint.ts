// POST /hooks/<id>: a signed delivery starts one turn in the hook's thread; a replay, a bad signature, an
// oversize body or a burst past the rate start nothing.
import type { IncomingMessage as HttpRequest, ServerResponse } from 'node:http';
import type { AuditLog } from '../approvals/index.ts';
import type { IncomingMessage } from '../platform/port.ts';
import { logRoutineDecision } from './decisionLog.ts';
import type { Logger } from '../ops/log.ts';
import type { Metrics } from '../ops/metrics.ts';
import { deliveryText, HOOK_HEADERS, type HookRules } from './hooks.ts';
import type { RoutineAccept } from './runs.ts';

export const HOOKS_PATH = '/hooks/';

export interface HookEndpointDeps {
  hooks: HookRules;
  accept(message: IncomingMessage, keys: string[]): Promise<RoutineAccept>;
  audit: AuditLog;
  maxBytes: number;
  ratePerMinute: number;
  logger: Logger;
  metrics?: Metrics;
}

class TooLarge extends Error {}

/** The body, or TooLarge past `max` bytes (read no further: the connection is closed with the 413). */
async function readBody(req: HttpRequest, max: number): Promise<Buffer> {
  const declared = Number(req.headers['content-length'] ?? '0');
  if (declared > max) throw new TooLarge();
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > max) throw new TooLarge();
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

const header = (req: HttpRequest, name: string): string | undefined => {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
};

function answer(res: ServerResponse, status: number, text: string): void {
  res.writeHead(status, { 'content-type': 'text/plain', ...(status === 413 ? { connection: 'close' } : {}) }).end(`${text}\n`);
}

/** Deliveries per hook in the current minute, on this instance (a fixed window). */
class HookRate {
  private window = 0;
  private readonly counts = new Map<string, number>();
  constructor(private readonly perMinute: number) {}
  take(id: string, now = Date.now()): boolean {
    const window = Math.floor(now / 60_000);
    if (window !== this.window) {
      this.window = window;
      this.counts.clear();
    }
    const count = (this.counts.get(id) ?? 0) + 1;
    this.counts.set(id, count);
    return count <= this.perMinute;
  }
}

export function hookHandler(deps: HookEndpointDeps): (req: HttpRequest, res: ServerResponse) => Promise<void> {
  const rate = new HookRate(deps.ratePerMinute);
  const count = (world: string, outcome: string) => deps.metrics?.routineRuns.inc({ world, kind: 'hook', outcome });
  return async (req, res) => {
    const id = (req.url ?? '').split('?')[0]?.slice(HOOKS_PATH.length) ?? '';
    const hook = /^h-[0-9a-f]{8}$/.test(id) ? await deps.hooks.find(id) : undefined;
    if (!hook) return answer(res, 404, 'no such hook');
    let body: Buffer;
    try {
      body = await readBody(req, deps.maxBytes);
    } catch (error) {
      if (!(error instanceof TooLarge)) throw error;
      count(hook.worldId, 'too_large');
      return answer(res, 413, `payload over HOOK_MAX_BYTES (${deps.maxBytes} bytes)`);
    }
    const names = HOOK_HEADERS[hook.provider];
    if (!deps.hooks.verify(hook, body, header(req, names.signature))) {
      count(hook.worldId, 'bad_signature');
      deps.logger.warn({ hook: hook.id, worldId: hook.worldId, remote: req.socket.remoteAddress }, 'webhook delivery refused: bad signature');
      await deps.audit.record({ at: Date.now(), kind: 'integrity', worldId: hook.worldId, chatId: hook.chatId, skillId: `hook:${hook.id}`, skillHash: '', items: [], outcome: 'refused', reason: `webhook ${hook.id}: bad or missing ${names.signature} from ${req.socket.remoteAddress ?? 'unknown'}` });
      return answer(res, 401, 'bad signature');
    }
    const deliveryId = header(req, names.delivery)?.trim();
    if (!deliveryId || deliveryId.length > 200) return answer(res, 400, `missing ${names.delivery} header`);
    const event = header(req, names.event)?.trim() || 'unknown';
    if (hook.events.length > 0 && !hook.events.includes(event)) {
      count(hook.worldId, 'filtered');
      return answer(res, 202, `event "${event}" is not one this hook takes`);
    }
    if (!rate.take(hook.id)) {
      count(hook.worldId, 'rate_limited');
      return answer(res, 429, 'too many deliveries this minute');
    }
    const message: IncomingMessage = { worldId: hook.worldId, chatId: hook.chatId, userId: hook.owner, text: deliveryText(hook, event, deliveryId, body.toString('utf8')), origin: { kind: 'hook', id: hook.id } };
    const accepted = await deps.accept(message, [`hook:${hook.id}:${deliveryId}`]);
    count(hook.worldId, accepted);
    if (accepted === 'refused') return answer(res, 503, 'the bot could not take it now; deliver it again');
    if (accepted === 'duplicate') return answer(res, 200, 'already delivered');
    if (accepted === 'denied') return answer(res, 403, 'the hook\'s owner may not start work here now (access or limits); they were told why');
    logRoutineDecision(deps.logger, { decision: 'hook_delivery', id: hook.id, kind: 'hook', worldId: hook.worldId, by: hook.owner, chatId: hook.chatId, detail: `${event} ${deliveryId}` });
    answer(res, 202, 'accepted');
  };
}
