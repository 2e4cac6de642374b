// The SQL of the sqlite store's atomic operations and inbox: each one statement, hence atomic across every
// connection to the file (SQLite serialises writers).

// @keyv/sqlite's table: key TEXT PRIMARY KEY, value TEXT holding the {value, expires} JSON.
export const TABLE = 'keyv';
// Two instances on one file write in turns; a writer waits this long for the lock before it fails.
export const BUSY_TIMEOUT_MS = 5_000;

export const CLAIM_SQL = `INSERT INTO ${TABLE} (key, value) VALUES (?, ?)
  ON CONFLICT(key) DO UPDATE SET value = excluded.value
  WHERE json_extract(${TABLE}.value, '$.expires') <= ?
  RETURNING key`;
const LIVE_WITH_STATUS = `key = ? AND json_extract(value, '$.value.status') = ?
  AND (json_extract(value, '$.expires') IS NULL OR json_extract(value, '$.expires') > ?)`;
// Without a new TTL only the value changes: the record keeps its expiry.
export const CAS_KEEP_EXPIRY_SQL = `UPDATE ${TABLE} SET value = json_set(value, '$.value', json(?)) WHERE ${LIVE_WITH_STATUS} RETURNING key`;
export const CAS_NEW_EXPIRY_SQL = `UPDATE ${TABLE} SET value = ? WHERE ${LIVE_WITH_STATUS} RETURNING key`;
export const RELEASE_SQL = `DELETE FROM ${TABLE} WHERE ${LIVE_WITH_STATUS} RETURNING key`;
// Expiry, indexed (an expression index: the table is @keyv/sqlite's), so the periodic purge reads only the rows
// that expired instead of every row. The expression tolerates a value that is not JSON; the query repeats it
// exactly, which is what lets the planner use the index.
const EXPIRES = `(CASE WHEN json_valid(value) THEN json_extract(value, '$.expires') END)`;
export const EXPIRES_INDEX_SQL = `CREATE INDEX IF NOT EXISTS ${TABLE}_expires ON ${TABLE} ${EXPIRES}`;
export const PURGE_SQL = `DELETE FROM ${TABLE} WHERE ${EXPIRES} <= ? RETURNING key`;

// The inbox lives in the same table as everything else, under keys whose order is the queue's order, and is
// read only by key ranges (index-served): `chats:queue/<chat>/<id>` per waiting message (ids sort by arrival),
// `chats:queued-chat/<chat>` per chat with messages waiting. The chat id is URI-encoded so it holds no '/'.
export const QUEUE = 'chats:queue/';
export const QUEUED_CHAT = 'chats:queued-chat/';
export const queueOf = (chatId: string) => `${QUEUE}${encodeURIComponent(chatId)}/`;
export const queuedChatKey = (chatId: string) => `${QUEUED_CHAT}${encodeURIComponent(chatId)}`;
const IN_RANGE = 'key >= ? AND key < ?';
const LIVE = `(json_extract(value, '$.expires') IS NULL OR json_extract(value, '$.expires') > ?)`;

/**
 * accept() as one statement, hence atomic across every connection: the claim rows, the message and the chat's
 * waiting marker are inserted together, or (some claim still live) none of them. An expired claim row is
 * replaced; an existing marker keeps the older of the two arrival times (the chat's oldest message). `claims` is the number of claims.
 */
export function acceptSql(claims: number, rows: number): string {
  const values = Array.from({ length: rows }, () => '(?, ?)').join(', ');
  const unclaimed =
    claims === 0 ? 'true' : `NOT EXISTS (SELECT 1 FROM ${TABLE} WHERE key IN (${Array.from({ length: claims }, () => '?').join(', ')}) AND ${LIVE})`;
  return `WITH incoming(key, value) AS (VALUES ${values})
  INSERT INTO ${TABLE} (key, value) SELECT key, value FROM incoming WHERE ${unclaimed}
  ON CONFLICT(key) DO UPDATE SET value = CASE WHEN ${TABLE}.key = ?
    THEN json_set(${TABLE}.value, '$.value.oldestAt', min(json_extract(${TABLE}.value, '$.value.oldestAt'), json_extract(excluded.value, '$.value.oldestAt')))
    ELSE excluded.value END
  RETURNING key`;
}
export const HEAD_SQL = `SELECT value FROM ${TABLE} WHERE ${IN_RANGE} ORDER BY key LIMIT ?`;
export const REMOVE_ITEM_SQL = `DELETE FROM ${TABLE} WHERE key = ?`;
// The chat's marker follows its new oldest message, or goes once there is none (each one atomic statement).
export const RENEW_MARKER_SQL = `UPDATE ${TABLE} SET value = json_set(value, '$.value.oldestAt',
    (SELECT json_extract(value, '$.value.at') FROM ${TABLE} WHERE ${IN_RANGE} ORDER BY key LIMIT 1))
  WHERE key = ? AND EXISTS (SELECT 1 FROM ${TABLE} WHERE ${IN_RANGE})`;
export const DROP_MARKER_SQL = `DELETE FROM ${TABLE} WHERE key = ? AND NOT EXISTS (SELECT 1 FROM ${TABLE} WHERE ${IN_RANGE})`;
export const QUEUED_CHATS_SQL = `SELECT value FROM ${TABLE} WHERE ${IN_RANGE}`;
export const QUEUE_SIZE_SQL = `SELECT count(*) AS size FROM ${TABLE} WHERE ${IN_RANGE}`;
export const LIST_SQL = `SELECT key, value FROM ${TABLE} WHERE ${IN_RANGE} ORDER BY key`;

/**
 * The statements of the per-turn and periodic paths that read the table, for a test that checks each is served by
 * the primary key's index (claim and Keyv's set are plain inserts by key: no read plan).
 */
export const INDEXED_STATEMENTS = {
  get: `SELECT value FROM ${TABLE} WHERE key = ?`,
  accept: acceptSql(2, 4),
  head: HEAD_SQL,
  removeItem: REMOVE_ITEM_SQL,
  renewMarker: RENEW_MARKER_SQL,
  dropMarker: DROP_MARKER_SQL,
  queuedChats: QUEUED_CHATS_SQL,
  queueSize: QUEUE_SIZE_SQL,
  list: LIST_SQL,
  compareAndSet: CAS_NEW_EXPIRY_SQL,
  release: RELEASE_SQL,
  purge: PURGE_SQL,
};

/**
 * increment() as one statement: a live number gains `by` (keeping its expiry); a missing, expired or non-number
 * record becomes `by`, expiring at the given time. Parameters: key, by, expires, now, by. Returns the new total.
 */
export const INCREMENT_SQL = `INSERT INTO ${TABLE} (key, value) VALUES (?, json_object('value', ?, 'expires', ?))
  ON CONFLICT(key) DO UPDATE SET value = CASE
    WHEN json_valid(${TABLE}.value) AND json_type(${TABLE}.value, '$.value') IN ('integer', 'real')
      AND (json_extract(${TABLE}.value, '$.expires') IS NULL OR json_extract(${TABLE}.value, '$.expires') > ?)
    THEN json_set(${TABLE}.value, '$.value', json_extract(${TABLE}.value, '$.value') + ?)
    ELSE excluded.value END
  RETURNING json_extract(value, '$.value') AS total`;
