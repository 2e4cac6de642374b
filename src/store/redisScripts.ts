// The Lua scripts of the Redis store's atomic operations (each one server-side step; docs/store.md).

/**
 * Compare-and-set in one server-side step. KEYS[1] the record; ARGV: expected status, the new value's JSON,
 * new TTL in ms (0: keep the record's expiry), the caller's clock in ms (Keyv's `expires` is client time).
 * The value JSON is spliced in as text, never re-encoded by cjson (which would turn [] into {}).
 */
export const CAS_SCRIPT = `
local current = redis.call('GET', KEYS[1])
if not current then return 0 end
local ok, record = pcall(cjson.decode, current)
if not ok or type(record) ~= 'table' or type(record.value) ~= 'table' or record.value.status ~= ARGV[1] then return 0 end
local now = tonumber(ARGV[4])
local expires = record.expires
if type(expires) == 'number' and expires <= now then return 0 end
local ttl = tonumber(ARGV[3])
if ttl > 0 then
  redis.call('SET', KEYS[1], '{"value":' .. ARGV[2] .. ',"expires":' .. string.format('%d', now + ttl) .. '}', 'PX', ttl)
elseif type(expires) == 'number' then
  redis.call('SET', KEYS[1], '{"value":' .. ARGV[2] .. ',"expires":' .. string.format('%d', expires) .. '}', 'KEEPTTL')
else
  redis.call('SET', KEYS[1], '{"value":' .. ARGV[2] .. '}')
end
return 1`;

/**
 * increment() in one server-side step. KEYS[1] the record; ARGV: the amount, TTL in ms for a new record, the
 * caller's clock in ms. A live number gains the amount and keeps its expiry; anything else becomes the amount.
 * The total goes back as text ('%.17g' keeps every integer a double holds exactly).
 */
export const INCREMENT_SCRIPT = `
local by = tonumber(ARGV[1])
local now = tonumber(ARGV[3])
local current = redis.call('GET', KEYS[1])
if current then
  local ok, record = pcall(cjson.decode, current)
  if ok and type(record) == 'table' and type(record.value) == 'number' and (type(record.expires) ~= 'number' or record.expires > now) then
    local total = string.format('%.17g', record.value + by)
    if type(record.expires) == 'number' then
      redis.call('SET', KEYS[1], '{"value":' .. total .. ',"expires":' .. string.format('%d', record.expires) .. '}', 'KEEPTTL')
    else
      redis.call('SET', KEYS[1], '{"value":' .. total .. '}')
    end
    return total
  end
end
local ttl = tonumber(ARGV[2])
local total = string.format('%.17g', by)
redis.call('SET', KEYS[1], '{"value":' .. total .. ',"expires":' .. string.format('%d', now + ttl) .. '}', 'PX', ttl)
return total`;

/**
 * Delete only a live record with the expected status. KEYS[1] the record; ARGV: expected status, the
 * caller's clock in ms.
 */
export const RELEASE_SCRIPT = `
local current = redis.call('GET', KEYS[1])
if not current then return 0 end
local ok, record = pcall(cjson.decode, current)
if not ok or type(record) ~= 'table' or type(record.value) ~= 'table' or record.value.status ~= ARGV[1] then return 0 end
local expires = record.expires
if type(expires) == 'number' and expires <= tonumber(ARGV[2]) then return 0 end
redis.call('DEL', KEYS[1])
return 1`;

/**
 * accept() in one server-side step. KEYS: the chat's queue (sorted set of message ids by arrival), its messages
 * (hash id → JSON), the set of chats waiting (sorted by their oldest message), the waiting-message counter, then
 * the claim keys. ARGV: '1' with a message ('0' without), the claim record's JSON, claim TTL ms, message id,
 * arrival ms, message JSON, chat id. Nothing is written when a claim is held: 0; else 1.
 */
export const ACCEPT_SCRIPT = `
for i = 5, #KEYS do
  if redis.call('EXISTS', KEYS[i]) == 1 then return 0 end
end
for i = 5, #KEYS do
  redis.call('SET', KEYS[i], ARGV[2], 'PX', ARGV[3])
end
if ARGV[1] == '1' then
  redis.call('ZADD', KEYS[1], ARGV[5], ARGV[4])
  redis.call('HSET', KEYS[2], ARGV[4], ARGV[6])
  redis.call('ZADD', KEYS[3], 'LT', ARGV[5], ARGV[7])
  redis.call('INCR', KEYS[4])
end
return 1`;

/** The first ARGV[1] messages of a chat, oldest first. KEYS: the chat's queue and messages. */
export const HEAD_SCRIPT = `
local ids = redis.call('ZRANGE', KEYS[1], 0, tonumber(ARGV[1]) - 1)
if #ids == 0 then return {} end
return redis.call('HMGET', KEYS[2], unpack(ids))`;

/**
 * Removes one message (ARGV[1]) of a chat (ARGV[2]); the chat stays in the waiting set under its new oldest
 * message, or leaves it. KEYS as in ACCEPT_SCRIPT, without claims.
 */
export const REMOVE_SCRIPT = `
if redis.call('ZREM', KEYS[1], ARGV[1]) == 1 then
  redis.call('HDEL', KEYS[2], ARGV[1])
  redis.call('DECR', KEYS[4])
end
local head = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
if #head == 0 then
  redis.call('ZREM', KEYS[3], ARGV[2])
else
  redis.call('ZADD', KEYS[3], head[2], ARGV[2])
end
return 1`;
