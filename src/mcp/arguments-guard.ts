/**
 * A `tools/call` whose `arguments` is not a plain record of parameters, refused before the
 * SDK sees it. The SDK's own check answers a number, an array or `null` with a bare -32603,
 * and an object with a `constructor` key with the TypeError its validator throws ("Cannot
 * read properties of null (reading 'prototype')"): neither names the problem. Here they get
 * -32602 (Invalid params) saying what was wrong and what to send.
 */

/** JSON-RPC's code for invalid method parameters. */
const INVALID_PARAMS = -32602;

/** Keys no baton tool takes that break object checks (`JSON.parse` makes `__proto__` an own key). */
const UNSAFE_KEYS = ['constructor', '__proto__', 'prototype'];

/** A JSON-RPC error answer for one request. */
export interface ArgumentsRefusal {
  jsonrpc: '2.0';
  id: string | number;
  error: { code: number; message: string; data: { tool: string | null } };
}

/**
 * The refusal of `message` when it is a `tools/call` request whose `arguments` is present and
 * is not a plain JSON object, or has a key no tool takes (`constructor`, `__proto__`,
 * `prototype`); null for every other message, which goes on to the SDK unchanged.
 */
export function refuseArguments(message: unknown): ArgumentsRefusal | null {
  if (!isRecord(message) || message['method'] !== 'tools/call') return null;
  const id = message['id'];
  if (typeof id !== 'string' && typeof id !== 'number') return null; // a notification gets no answer
  const params = message['params'];
  if (!isRecord(params) || !('arguments' in params) || params['arguments'] === undefined) return null;
  const args = params['arguments'];
  const tool = typeof params['name'] === 'string' ? params['name'] : null;
  const problem = argumentsProblem(args);
  if (!problem) return null;
  const what = tool ? `of tools/call "${tool}"` : 'of tools/call';
  return {
    jsonrpc: '2.0',
    id,
    error: {
      code: INVALID_PARAMS,
      message: `Invalid params: "arguments" ${what} ${problem}. Send a JSON object of the tool's parameters (tools/list shows them), or {} for none.`,
      data: { tool },
    },
  };
}

function argumentsProblem(args: unknown): string | null {
  if (args === null) return 'is null';
  if (Array.isArray(args)) return 'is an array';
  if (typeof args !== 'object') return `is a ${typeof args}`;
  const unsafe = UNSAFE_KEYS.find((k) => Object.hasOwn(args, k));
  if (unsafe) return `has the key "${unsafe}", which is not a parameter of any baton tool`;
  const proto = Object.getPrototypeOf(args) as unknown;
  if (proto !== Object.prototype && proto !== null) return 'is not a plain JSON object';
  return null;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}
