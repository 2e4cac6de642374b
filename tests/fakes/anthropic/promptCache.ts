import { createHash } from 'node:crypto';
import { messageBlocks, type CacheControl, type MessagesRequest } from './requestSchema.ts';
import { canonicalJson, estimateTokens } from './tokenEstimate.ts';

/** The input side of the API's `usage` object. */
export interface InputUsage {
  input_tokens: number;
  cache_creation_input_tokens: number;
  cache_read_input_tokens: number;
  cache_creation: { ephemeral_5m_input_tokens: number; ephemeral_1h_input_tokens: number };
}

interface FlatBlock {
  canonical: string;
  cacheControl: CacheControl | null;
}

// How far back from a breakpoint the API looks for an earlier cache entry.
const LOOKBACK_BLOCKS = 20;
const TTL_MS = { '5m': 5 * 60_000, '1h': 60 * 60_000 } as const;

function withoutCacheControl(block: object): object {
  const { cache_control: _ignored, ...rest } = block as { cache_control?: unknown };
  return rest;
}

/**
 * The request as the API caches it: tools, then system blocks, then every message's blocks, each
 * serialised without its cache_control (moving a marker must not change the bytes it marks).
 */
function flatten(body: MessagesRequest): FlatBlock[] {
  const flat = (section: string, block: object & { cache_control?: CacheControl | null }): FlatBlock => ({
    canonical: canonicalJson({ section, block: withoutCacheControl(block) }),
    cacheControl: block.cache_control ?? null,
  });
  const system = typeof body.system === 'string' ? [{ type: 'text', text: body.system }] : (body.system ?? []);
  const blocks = [
    ...(body.tools ?? []).map((tool) => flat('tool', tool)),
    ...system.map((block) => flat('system', block)),
    ...body.messages.flatMap((message) => messageBlocks(message).map((block) => flat(message.role, block))),
  ];
  const last = blocks.at(-1);
  // Top-level cache_control marks the last cacheable block (automatic caching).
  if (body.cache_control && last && !last.cacheControl) last.cacheControl = body.cache_control;
  return blocks;
}

/**
 * An honest model of prompt caching: a request reads from the cache only a prefix that is
 * byte-identical to one an earlier request marked with cache_control, found within 20 blocks before one
 * of its own breakpoints; it writes the prefix up to each of its breakpoints.
 */
export class PromptCache {
  readonly #minTokens: number;
  readonly #entries = new Map<string, { expiresAt: number; ttlMs: number }>();

  constructor(minCacheTokens: number) {
    this.#minTokens = minCacheTokens;
  }

  clear(): void {
    this.#entries.clear();
  }

  /** Splits the request's input tokens into read, written and uncached, and records what it writes. */
  account(body: MessagesRequest, now = Date.now()): InputUsage {
    const blocks = flatten(body);
    const hashes: string[] = [];
    const cumulative: number[] = [];
    let hash = createHash('sha256').update(`model:${body.model}`).digest('hex');
    let tokens = 0;
    for (const block of blocks) {
      hash = createHash('sha256').update(hash).update('\n').update(block.canonical).digest('hex');
      tokens += estimateTokens(block.canonical);
      hashes.push(hash);
      cumulative.push(tokens);
    }
    const tokensUpTo = (index: number): number => (index < 0 ? 0 : (cumulative[index] ?? 0));
    const breakpoints = blocks.flatMap((block, index) => (block.cacheControl ? [index] : []));

    let readEnd = -1;
    for (const breakpoint of breakpoints) {
      for (let index = breakpoint; index >= Math.max(0, breakpoint - LOOKBACK_BLOCKS + 1); index--) {
        const entry = this.#entries.get(hashes[index] ?? '');
        if (entry && entry.expiresAt > now) {
          readEnd = Math.max(readEnd, index);
          entry.expiresAt = now + entry.ttlMs;
          break;
        }
      }
    }

    const written = { ephemeral_5m_input_tokens: 0, ephemeral_1h_input_tokens: 0 };
    let writtenEnd = readEnd;
    for (const breakpoint of breakpoints) {
      if (tokensUpTo(breakpoint) < this.#minTokens) continue;
      const ttl = blocks[breakpoint]?.cacheControl?.ttl ?? '5m';
      this.#entries.set(hashes[breakpoint] ?? '', { expiresAt: now + TTL_MS[ttl], ttlMs: TTL_MS[ttl] });
      if (breakpoint <= writtenEnd) continue;
      written[ttl === '1h' ? 'ephemeral_1h_input_tokens' : 'ephemeral_5m_input_tokens'] +=
        tokensUpTo(breakpoint) - tokensUpTo(writtenEnd);
      writtenEnd = breakpoint;
    }

    const read = tokensUpTo(readEnd);
    const creation = tokensUpTo(writtenEnd) - read;
    return {
      input_tokens: tokens - read - creation,
      cache_creation_input_tokens: creation,
      cache_read_input_tokens: read,
      cache_creation: written,
    };
  }
}
