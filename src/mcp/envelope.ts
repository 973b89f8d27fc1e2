/*
 * Hand-written checks of the JSON-RPC envelope of the messages a server receives (requests and
 * notifications), each accepting only what the SDK's own schemas (JSONRPCRequestSchema,
 * JSONRPCNotificationSchema in @modelcontextprotocol/sdk/types.js) accept. The SDK parses every
 * message with those schemas several times over (zod, ≈ 0.1 ms a message); these checks let the
 * common message through at the cost of a few property reads. They may be stricter than the
 * SDK, never looser: whatever they refuse is handed to the SDK's schemas, which decide.
 */

/** The `_meta` key of a request that belongs to a task (the SDK's RELATED_TASK_META_KEY). */
export const RELATED_TASK_META_KEY = 'io.modelcontextprotocol/related-task';

/** A request id as the SDK accepts it: a string or a (safe) integer. */
export type RequestId = string | number;

/** A request whose envelope passed {@link isPlainRequest}. */
export interface PlainRequest {
  jsonrpc: '2.0';
  id: RequestId;
  method: string;
  params?: Record<string, unknown>;
}

/** A notification whose envelope passed {@link isPlainNotification}. */
export interface PlainNotification {
  jsonrpc: '2.0';
  method: string;
  params?: Record<string, unknown>;
}

/** A JSON object (from JSON.parse or a plain literal): not an array, not null, no odd prototype. */
export function isPlainObject(v: unknown): v is Record<string, unknown> {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return false;
  const proto = Object.getPrototypeOf(v) as unknown;
  return proto === Object.prototype || proto === null;
}

/** A request id as the SDK's RequestIdSchema accepts it (zod's int() is the safe-integer range). */
export function isRequestId(v: unknown): v is RequestId {
  return typeof v === 'string' || (typeof v === 'number' && Number.isSafeInteger(v));
}

/** Every own key of `o` is one of `allowed` (the SDK's envelope schemas are strict). */
function onlyKeys(o: Record<string, unknown>, allowed: ReadonlySet<string>): boolean {
  for (const k in o) if (!allowed.has(k)) return false;
  // for…in skips non-enumerable and symbol keys, which JSON never produces; a `__proto__`
  // member from JSON.parse is an own enumerable key and is caught above.
  return true;
}

/** `_meta` of a request or notification as the SDK's RequestMetaSchema accepts it (a loose object). */
export function isPlainMeta(meta: unknown): boolean {
  if (meta === undefined) return true;
  if (!isPlainObject(meta)) return false;
  const token = meta['progressToken'];
  if (token !== undefined && !isRequestId(token)) return false;
  const task = meta[RELATED_TASK_META_KEY];
  if (task !== undefined && !(isPlainObject(task) && typeof task['taskId'] === 'string')) return false;
  return true;
}

/** `params` of a request or notification: absent, or an object whose `_meta` is well-formed. */
function isPlainParams(params: unknown): boolean {
  return params === undefined || (isPlainObject(params) && isPlainMeta(params['_meta']));
}

const REQUEST_KEYS: ReadonlySet<string> = new Set(['jsonrpc', 'id', 'method', 'params']);
const NOTIFICATION_KEYS: ReadonlySet<string> = new Set(['jsonrpc', 'method', 'params']);

/** `m` is a JSON-RPC request the SDK's JSONRPCRequestSchema accepts. */
export function isPlainRequest(m: unknown): m is PlainRequest {
  return (
    isPlainObject(m) &&
    m['jsonrpc'] === '2.0' &&
    isRequestId(m['id']) &&
    typeof m['method'] === 'string' &&
    onlyKeys(m, REQUEST_KEYS) &&
    isPlainParams(m['params'])
  );
}

/** `m` is a JSON-RPC notification the SDK's JSONRPCNotificationSchema accepts. */
export function isPlainNotification(m: unknown): m is PlainNotification {
  return (
    isPlainObject(m) &&
    m['jsonrpc'] === '2.0' &&
    typeof m['method'] === 'string' &&
    onlyKeys(m, NOTIFICATION_KEYS) &&
    isPlainParams(m['params'])
  );
}
