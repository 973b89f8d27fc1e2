/**
 * The fixture transcripts of a real Claude Code conversation, as the Claude Agent SDK hands
 * them to a session store (no vitest here: the host processes load it too).
 */
import fs from 'node:fs';
import path from 'node:path';
import type { SessionStoreEntry } from '../../src/claude-agent-sdk/index.js';

const FIX = path.join(path.dirname(new URL(import.meta.url).pathname), '..', 'fixtures', 'transcripts');

/** A fixture transcript of a real Claude Code 2.1.197 conversation: its path and its lines as entries. */
export function fixture(name: 'claude-main.jsonl' | 'claude-subagent.jsonl'): {
  path: string;
  entries: SessionStoreEntry[];
} {
  const file = path.join(FIX, name);
  const entries = fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as SessionStoreEntry);
  return { path: file, entries };
}

/** `entries` in batches of `size`, as the SDK's mirror flushes them. */
export function batches<T>(entries: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < entries.length; i += size) out.push(entries.slice(i, i + size));
  return out;
}
