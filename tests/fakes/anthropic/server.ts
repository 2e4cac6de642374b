import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { listenOnLoopback } from '../freePort.ts';
import { setTimeout as delay } from 'node:timers/promises';
import { buildAssistantMessage, type AssistantMessage } from './assistantMessage.ts';
import { echoBrain, textReply, type Brain } from './brain.ts';
import { FaultPlan, type Fault, type FaultRateOptions, type PlannedFault } from './faults.ts';
import { httpFaultHeaders, readBody, sendError, writeChunk, type ErrorType } from './httpExchange.ts';
import { PromptCache } from './promptCache.ts';
import { describeIssues, messagesRequestSchema, type MessagesRequest } from './requestSchema.ts';
import { ruleViolation } from './requestRules.ts';
import { summariseCache, type CacheStats, type RecordedRequest } from './recordedRequest.ts';
import { encodeSse, messageStartEvent, streamEvents, type SseEvent } from './streamEvents.ts';

export interface FakeAnthropicOptions {
  /** Who answers. Default: echoBrain. */
  brain?: Brain;
  /** Delay before the first byte of every answer to a valid request (default 0). */
  latencyMs?: number;
  /** Delay between streamed events (default 0), for tests that watch a reply grow. */
  chunkDelayMs?: number;
  /** Prefixes shorter than this many tokens are never cached, like the API's per-model minimum (default 0). */
  minCacheTokens?: number;
  /** Told of each streamed event just before it is written (benches time deltas from here). */
  onEvent?: (event: SseEvent, at: number) => void;
  /** The keys it accepts; any other gets the API's 401 `invalid x-api-key`. Default: any key. */
  apiKeys?: readonly string[];
}

const CUT_TEXT = 'This reply is cut short by the fake before it can finish.';

export interface FakeAnthropic {
  /** Base URL for the SDK (`baseURL` option or ANTHROPIC_BASE_URL), e.g. http://127.0.0.1:41234 */
  readonly url: string;
  readonly requests: RecordedRequest[];
  setBrain(brain: Brain): void;
  /** The next requests fail with these faults, one each, in order (before any random fault). */
  failNext(...faults: Fault[]): void;
  /** Random faults from a seeded generator; null turns them off. */
  faultRate(options: FaultRateOptions | null): void;
  cacheStats(): CacheStats;
  /** Forget every cache entry, as if their TTL had passed. */
  clearCache(): void;
  /** Stops listening and drops open connections (hanging requests included). */
  close(): Promise<void>;
}

/** Starts the fake on 127.0.0.1 and a free port. */
export async function startFakeAnthropic(options: FakeAnthropicOptions = {}): Promise<FakeAnthropic> {
  let brain = options.brain ?? echoBrain;
  let brainCalls = 0;
  const requests: RecordedRequest[] = [];
  const faults = new FaultPlan();
  const cache = new PromptCache(options.minCacheTokens ?? 0);
  const closing = new AbortController();
  const pause = async (ms: number | undefined): Promise<void> => {
    if (ms) await delay(ms, undefined, { signal: closing.signal });
  };

  async function writeEvents(res: ServerResponse, events: SseEvent[], chunkDelayMs = options.chunkDelayMs): Promise<void> {
    // Without a delay to show, one write: the client's SSE parser still sees every event, at less cost.
    if (!chunkDelayMs) {
      for (const event of events) options.onEvent?.(event, Date.now());
      return writeChunk(res, events.map(encodeSse).join(''));
    }
    for (const event of events) {
      if (res.destroyed) return;
      options.onEvent?.(event, Date.now());
      await writeChunk(res, encodeSse(event));
      await pause(chunkDelayMs);
    }
  }

  function openStream(res: ServerResponse, seq: number): void {
    res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', 'request-id': `req_fake_${seq}` });
    res.flushHeaders();
  }

  async function answerFault(res: ServerResponse, record: RecordedRequest, planned: PlannedFault, body: MessagesRequest): Promise<void> {
    // Without a stream, an overload can only be told as a status: the API answers 529.
    const fault: PlannedFault = planned.kind === 'stream_error' && !record.stream ? { kind: '529' } : planned;
    record.outcome = fault.kind;
    switch (fault.kind) {
      case '429': case '529': case '500': {
        const [status, type, text] = fault.kind === '429' ? [429, 'rate_limit_error', 'Number of request tokens has exceeded your rate limit (fake).'] as const
          : fault.kind === '529' ? [529, 'overloaded_error', 'Overloaded'] as const
          : [500, 'api_error', 'Internal server error'] as const;
        record.status = status;
        record.error = text;
        sendError(res, status, type, text, { 'request-id': `req_fake_${record.seq}`, ...httpFaultHeaders(fault) });
        return;
      }
      case 'hang':
        return; // close() or the client's own timeout ends it.
      case 'stream_error':
      case 'cut': {
        // The API has read the prompt (and billed it) by the time a stream breaks.
        const message = buildAssistantMessage(textReply(CUT_TEXT), record.seq, body.model, cache.account(body));
        record.status = 200;
        record.usage = message.usage;
        if (!record.stream) {
          // A body cut halfway through its declared length.
          const json = JSON.stringify(message);
          res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(json), 'request-id': `req_fake_${record.seq}` });
          await writeChunk(res, json.slice(0, json.length >> 1));
          res.destroy();
          return;
        }
        openStream(res, record.seq);
        if (fault.kind === 'stream_error') {
          record.error = 'Overloaded';
          await writeEvents(res, [messageStartEvent(message), { event: 'error', data: { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } } }]);
          res.end();
          return;
        }
        const afterDeltas = 'afterDeltas' in fault ? (fault.afterDeltas ?? 2) : 2;
        // message_start, content_block_start, ping, then the deltas that make it through.
        await writeEvents(res, streamEvents(message).slice(0, 3 + afterDeltas));
        res.destroy();
        return;
      }
    }
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const headers = Object.fromEntries(Object.entries(req.headers).map(([name, value]) => [name, Array.isArray(value) ? value.join(', ') : (value ?? '')]));
    const apiKey = headers['x-api-key'] || headers.authorization?.replace(/^Bearer\s+/i, '') || undefined;
    const record: RecordedRequest = {
      seq: requests.length, method: req.method ?? '', path: req.url ?? '', headers, apiKey, rawBody: '', body: undefined,
      stream: false, status: 0, outcome: 'pending',
    };
    requests.push(record);
    record.rawBody = await readBody(req);
    const refuse = (status: number, type: ErrorType, message: string): void => {
      Object.assign(record, { status, outcome: 'invalid', error: message });
      sendError(res, status, type, message, { 'request-id': `req_fake_${record.seq}` });
    };

    const { pathname } = new URL(record.path, 'http://fake');
    if (record.method !== 'POST' || pathname !== '/v1/messages') return refuse(404, 'not_found_error', `Not found: ${record.method} ${pathname}`);
    if (!apiKey) return refuse(401, 'authentication_error', 'x-api-key or authorization header is required');
    if (options.apiKeys !== undefined && !options.apiKeys.includes(apiKey)) return refuse(401, 'authentication_error', 'invalid x-api-key');
    const version = headers['anthropic-version'];
    if (!version) return refuse(400, 'invalid_request_error', 'anthropic-version: header is required');
    let json: unknown;
    try {
      json = JSON.parse(record.rawBody);
    } catch {
      return refuse(400, 'invalid_request_error', 'The request body is not valid JSON');
    }
    const parsed = messagesRequestSchema.safeParse(json);
    if (!parsed.success) return refuse(400, 'invalid_request_error', describeIssues(parsed.error));
    const body = parsed.data;
    record.body = body;
    record.stream = body.stream === true;
    const violation = ruleViolation(body, version);
    if (violation) return refuse(400, 'invalid_request_error', violation);

    const fault = faults.next();
    await pause(options.latencyMs);
    if (fault) return answerFault(res, record, fault, body);

    const input = cache.account(body);
    const brainIndex = brainCalls++;
    let message: AssistantMessage;
    let replyDelayMs: number | undefined;
    try {
      // max_tokens 0 only warms the cache: the API generates nothing.
      const reply = body.max_tokens === 0 ? { content: [], stop_reason: 'max_tokens' as const }
        : await brain({ index: brainIndex, model: body.model, system: body.system, messages: body.messages, tools: body.tools ?? [], body, headers });
      message = buildAssistantMessage(reply, record.seq, body.model, input);
      replyDelayMs = 'chunkDelayMs' in reply ? reply.chunkDelayMs : undefined;
    } catch (error) {
      const text = `fake brain failed: ${error instanceof Error ? error.message : String(error)}`;
      Object.assign(record, { status: 500, outcome: 'brain_error', error: text });
      // Not retryable: a broken script is the test's bug, and retries would only hide it.
      return sendError(res, 500, 'api_error', text, { 'x-should-retry': 'false', 'request-id': `req_fake_${record.seq}` });
    }
    Object.assign(record, { status: 200, outcome: 'ok', usage: message.usage, brainIndex });
    if (!record.stream) {
      if (res.destroyed) return;
      res.writeHead(200, { 'content-type': 'application/json', 'request-id': `req_fake_${record.seq}` });
      res.end(JSON.stringify(message));
      return;
    }
    openStream(res, record.seq);
    await writeEvents(res, streamEvents(message), replyDelayMs ?? options.chunkDelayMs);
    res.end();
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (closing.signal.aborted) return; // the fake is closing: nobody is listening any more
      if (!res.headersSent) sendError(res, 500, 'api_error', `fake failed: ${String(error)}`, { 'x-should-retry': 'false' });
      else res.destroy();
    });
  });
  const port = await listenOnLoopback(server);

  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    setBrain(next) { brain = next; },
    failNext(...next) { faults.queue(next); },
    faultRate(rate) { faults.setRate(rate); },
    cacheStats: () => summariseCache(requests),
    clearCache() { cache.clear(); },
    async close() {
      closing.abort();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
