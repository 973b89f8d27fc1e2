/**
 * What the played live-sync conversations share (mirror-live*.test.ts): the hook payload of a
 * CLI's file tool, the context a hook hands the model, a work tree with a toolkit's files
 * imported and mirrored, and the check that the mirror folder and baton agree.
 */
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'vitest';
import { settingsOf } from '../../src/domain/settings.js';
import { reimportEvents } from '../../src/formats/reimport.js';
import type { Json } from '../../src/hooks/model.js';
import type { SessionManager } from '../../src/manager/index.js';
import { workspace } from './helpers.js';
import type { Toolkit } from './mirror-live-toolkits.js';

export const A = 'aaaaaaaa-1111-4aaa-8aaa-00000000000a';
export const B = 'bbbbbbbb-2222-4bbb-8bbb-00000000000b';

/** The payload of `cli`'s file tool having written `abs` with `content`. */
export function payload(
  cli: 'claude' | 'codex' | 'gemini',
  sid: string,
  dir: string,
  abs: string,
  content: string,
): Json {
  const base = { session_id: sid, cwd: dir, transcript_path: path.join(dir, `.${cli}-${sid.slice(0, 4)}.jsonl`) };
  if (cli === 'claude')
    return {
      ...base,
      hook_event_name: 'PostToolUse',
      tool_name: 'Write',
      tool_input: { file_path: abs, content },
      tool_response: { type: 'update', filePath: abs, content },
      tool_use_id: `toolu_${Date.now()}`,
    };
  const rel = path.relative(dir, abs);
  if (cli === 'codex')
    return {
      ...base,
      hook_event_name: 'PostToolUse',
      tool_name: 'apply_patch',
      tool_input: { command: `*** Begin Patch\n*** Update File: ${rel}\n@@\n-…\n+…\n*** End Patch\n` },
      tool_response: `Success. Updated the following files:\nM ${rel}\n`,
      tool_use_id: `call_${Date.now()}`,
    };
  return {
    ...base,
    hook_event_name: 'AfterTool',
    tool_name: 'write_file',
    tool_input: { file_path: abs, content },
    tool_response: {
      llmContent: `Successfully overwrote file: ${abs}`,
      returnDisplay: { fileName: path.basename(abs) },
    },
  };
}

/** The additional context a hook's stdout hands the model, or null. */
export function contextOf(stdout: string): string | null {
  if (!stdout.trim()) return null;
  const j = JSON.parse(stdout) as { hookSpecificOutput?: { additionalContext?: string } };
  return j.hookSpecificOutput?.additionalContext ?? null;
}

/** Re-importing the mirror folder now: nothing to bring forward, nothing lost. */
export async function agrees(m: SessionManager, id: string, t: Toolkit, out: string, dir: string): Promise<void> {
  const state = await m.get(id);
  const insp = await m.formats.inspect(out, t.format, { cwd: dir });
  const foreign = insp.sessions.find((s) => !s.archived)!;
  expect(foreign, JSON.stringify(insp.problems)).toBeDefined();
  expect(foreign.problems.filter((p) => p.code === 'REGISTRY_MISMATCH')).toEqual([]);
  const plan = reimportEvents(state, await m.log(id), foreign, { importedAt: new Date().toISOString(), root: out });
  const work = plan.events.filter((e) => e.type !== 'metadata.set' && e.type !== 'tokens.recorded');
  expect(work).toEqual([]);
  // tokens.recorded with nothing in it is re-import's way of naming an agent it already counts.
  for (const e of plan.events)
    if (e.type === 'tokens.recorded') expect([e.data.input, e.data.output, e.data.cached]).toEqual([0, 0, 0]);
  const diverged = plan.problems.filter(
    (p) => p.code === 'REIMPORT_DIVERGED' && p.details?.['kind'] !== 'unit_changed',
  );
  expect(diverged.map((p) => p.message)).toEqual([]);
}

/** A work tree holding toolkit `t`'s files, imported as a session that mirrors them (baton's first rewrite done). */
export async function mirrored(
  t: Toolkit,
): Promise<{ w: Awaited<ReturnType<typeof workspace>>; out: string; id: string }> {
  const w = await workspace({ start: false });
  const out = path.join(w.dir, t.out);
  for (const [rel, text] of Object.entries(t.files)) {
    fs.mkdirSync(path.dirname(path.join(out, rel)), { recursive: true });
    fs.writeFileSync(path.join(out, rel), text);
  }
  for (const sid of [A, B])
    for (const cli of ['claude', 'codex', 'gemini'])
      fs.writeFileSync(path.join(w.dir, `.${cli}-${sid.slice(0, 4)}.jsonl`), '');
  fs.appendFileSync(path.join(w.dir, '.git', 'info', 'exclude'), '.claude-*\n.codex-*\n.gemini-*\n');
  const m = w.m();
  const imp = await m.formats.import(out, t.format, { cwd: w.dir });
  const id = imp.sessions.find((s) => s.action === 'created')!.id!;
  // Setting the mirror is baton's first rewrite: the toolkit's files are now the mirror's.
  await m.formats.setMirror(id, { format: t.format, out }, { cwd: w.dir });
  expect(settingsOf(await m.get(id)).mirrorError).toBeNull();
  await m.close();
  return { w, out, id };
}
