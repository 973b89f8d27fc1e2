/**
 * Helpers of the MCP tests: a baton MCP server over an in-memory transport, with a manager over
 * the memory store, and a real SDK Client connected to it.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { expect } from 'vitest';
import { COMMAND_NAMES } from '../../src/cli/command-table.js';
import { SessionManager } from '../../src/manager/manager.js';
import { createMcpServer } from '../../src/mcp/server.js';
import type { ServerOptions } from '../../src/mcp/server.js';
import { MemoryStore } from '../../src/store/memory.js';
import { tickingClock } from '../support/clock.js';

export const T0 = Date.parse('2026-05-01T10:00:00.000Z');

/** A connected client and the manager behind its server. */
export interface Harness {
  client: Client;
  manager: SessionManager;
  close: () => Promise<void>;
}

/** Starts a server over a fresh memory store (or `manager`) and connects a client named `clientName`. */
export async function connect(
  o: { clientName?: string; manager?: SessionManager } & Partial<Omit<ServerOptions, 'manager'>> = {},
): Promise<Harness> {
  const manager =
    o.manager ?? new SessionManager({ store: new MemoryStore(), now: tickingClock(T0), pid: 1, host: 'h' });
  return { ...(await connectTo({ ...o, manager }, o.clientName)), manager };
}

/** Starts a server with exactly `options` (e.g. a manager opened on demand) and connects a client. */
export async function connectTo(options: ServerOptions, clientName = 'test-client'): Promise<Omit<Harness, 'manager'>> {
  const server = createMcpServer(options);
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: clientName, version: '1.0.0' });
  await server.connect(serverSide);
  await client.connect(clientSide);
  // As real clients do: listing the tools makes the SDK Client check every result against its output schema.
  await client.listTools();
  return {
    client,
    close: async () => {
      await client.close();
      await server.close();
    },
  };
}

/** Calls a tool and returns the raw result. */
export async function call(client: Client, name: string, args: Record<string, unknown> = {}): Promise<CallToolResult> {
  return (await client.callTool({ name, arguments: args })) as CallToolResult;
}

/** Calls a tool that must succeed; returns its structuredContent (checked against the text content). */
export async function ok<T = Record<string, any>>(
  client: Client,
  name: string,
  args: Record<string, unknown> = {},
): Promise<T> {
  const r = await call(client, name, args);
  expect(
    r.isError,
    `${name} ${JSON.stringify(args).slice(0, 300)} failed: ${JSON.stringify(r.content).slice(0, 600)}`,
  ).toBeFalsy();
  expect(r.structuredContent).toBeDefined();
  const text = (r.content[0] as { type: string; text: string }).text;
  expect(JSON.parse(text)).toEqual(r.structuredContent);
  return r.structuredContent as T;
}

/** The coded error body of a refused call. */
export interface ErrorBody {
  code: string;
  message: string;
  hint: string | null;
  details: Record<string, unknown>;
}

/** A CLI command or option as a hint might name it: `baton status`, baton resume, --force. */
const CLI_WORDING = new RegExp(`\\bbaton (${COMMAND_NAMES.join('|')})\\b|\`baton[\\s\`]|(^|[^\\w-])--[a-z]`);

const toolNames = new WeakMap<Client, Promise<Set<string>>>();

/**
 * Checks that a hint is worded for a tool caller: it names no CLI command or option, and every
 * tool-like name it quotes (`` `session_start` ``) is a tool the server lists.
 */
export async function expectToolHint(client: Client, hint: string, context = ''): Promise<void> {
  expect(hint, `${context}: hint names the CLI`).not.toMatch(CLI_WORDING);
  if (!toolNames.has(client))
    toolNames.set(
      client,
      client.listTools().then((r) => new Set(r.tools.map((t) => t.name))),
    );
  const tools = await toolNames.get(client)!;
  for (const [, name] of hint.matchAll(/`([a-z]+_[a-z_]+)`/g))
    expect(tools.has(name!), `${context}: hint names no tool ${name}: ${hint}`).toBe(true);
}

/** Calls a tool that must be refused with `code`; checks the isError contract and returns the error. */
export async function refused(
  client: Client,
  name: string,
  args: Record<string, unknown>,
  code: string,
): Promise<ErrorBody> {
  const r = await call(client, name, args);
  const context = `${name} ${JSON.stringify(args).slice(0, 300)} → ${JSON.stringify(r).slice(0, 800)}`;
  expect(r.isError, context).toBe(true);
  expect(r.content, context).toHaveLength(1);
  expect(r.structuredContent, context).toBeUndefined();
  const parsed = JSON.parse((r.content[0] as { text: string }).text) as { error: ErrorBody };
  expect(Object.keys(parsed), context).toEqual(['error']);
  const body = parsed.error;
  expect(body, context).toBeDefined();
  expect(body!.code, context).toBe(code);
  expect(body!.message.length, context).toBeGreaterThan(0);
  expect(typeof body!.hint, context).toBe('string');
  expect(body!.hint!.length, context).toBeGreaterThan(0);
  expect(typeof body!.details, context).toBe('object');
  await expectToolHint(client, body!.hint!, context);
  return body!;
}

/**
 * Calls a tool with arguments its input schema refuses (or an unknown tool): the SDK answers
 * with its own isError text, `MCP error -32602: Input validation error: Invalid arguments for
 * tool NAME: …` (or `Tool NAME not found`), before any baton code runs. Returns what follows the
 * tool's name: the SDK's account of what is wrong.
 */
export async function invalidArgs(client: Client, name: string, args: Record<string, unknown>): Promise<string> {
  const r = await call(client, name, args);
  const context = `${name} ${JSON.stringify(args).slice(0, 300)} → ${JSON.stringify(r).slice(0, 800)}`;
  expect(r.isError, context).toBe(true);
  expect(r.content, context).toHaveLength(1);
  expect(r.structuredContent, context).toBeUndefined();
  const text = (r.content[0] as { text: string }).text;
  if (text === `MCP error -32602: Tool ${name} not found`) return text;
  const m = /^MCP error -32602: (?:Input validation error: )?Invalid arguments for tool (\S+): (.+)$/s.exec(text);
  expect(m, context).not.toBeNull();
  expect(m![1], context).toBe(name);
  return m![2]!;
}
