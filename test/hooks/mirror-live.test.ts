/**
 * Live sync (docs/hooks.md): a session mirrored in a toolkit's layout, and models that keep
 * following the toolkit's prompts, rewriting its file with their file tools. For each of the
 * five toolkits, a played conversation through the real hook entry: conversation A (Claude
 * Code `Write`) advances the work; conversation B (Codex `apply_patch` or Gemini CLI
 * `write_file`), holding the file as it was before A's write, writes it with a change of its
 * own; A then writes again from its own copy, now stale too (and for CCW and Go Team, B writes
 * the registry from its stale copy). Each write is imported in its hook; each stale one is a
 * conflict: what was new in it is taken, baton's state wins, the file is rewritten, a
 * `mirror.conflicted` event is recorded and the writer is told in its context what it
 * overwrote. At the end the file and baton's state agree (re-importing the folder finds
 * nothing to bring forward and nothing lost), and baton's next change rewrites the mirror.
 * The toolkits' files are written here from the seed specifications.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { SessionManager } from '../../src/manager/index.js';
import { settingsOf } from '../../src/domain/settings.js';
import { hookInProcess, hookSpawned } from './helpers.js';
import { A, agrees, B, contextOf, mirrored, payload } from './mirror-live-play.js';
import { BMAD, BMIT, CCW, GO_TEAM, MAESTRO } from './mirror-live-toolkits.js';
import type { Toolkit } from './mirror-live-toolkits.js';

type Runner = (
  cli: string,
  input: string,
  cwd: string,
  env: Record<string, string>,
) => Promise<{ code: number | null; stdout: string }>;
const inProcess: Runner = (cli, input, cwd, env) => hookInProcess(cli, input, cwd, env);
const spawned: Runner = (cli, input, cwd, env) => hookSpawned(cli, input, cwd, env);

/** Plays toolkit `t`'s conversation through `run` (see the file comment) and checks every step. */
async function played(t: Toolkit, run: Runner): Promise<void> {
  const { w, out, id } = await mirrored(t);
  let m: SessionManager;

  // Both conversations read the files now; each then keeps its own copy.
  const start = new Map(t.steps.map((s) => [s.file, fs.readFileSync(path.join(out, s.file), 'utf8')]));
  const own = new Map<string, string>();
  const env = { BATON_SESSION: id, BATON_HOOK_AGENT_PID: String(process.pid), BATON_HOOK_KEEPER: 'off' };
  let conflicts = 0;
  for (const [i, step] of t.steps.entries()) {
    const cli = step.who === 'A' ? 'claude' : t.other;
    const sid = step.who === 'A' ? A : B;
    const copy = step.from === 'own' ? own.get(`${step.who}:${step.file}`)! : start.get(step.file)!;
    const doc = step.codec.parse(copy);
    step.change(doc);
    const text = step.codec.print(doc);
    own.set(`${step.who}:${step.file}`, text);
    const abs = path.join(out, step.file);
    fs.writeFileSync(abs, text);
    const r = await run(cli, JSON.stringify(payload(cli, sid, w.dir, abs, text)), w.dir, env);
    expect(r.code).toBe(0);
    const told = contextOf(r.stdout);
    m = w.m();
    const log = await m.log(id);
    const recorded = log.filter((e) => e.type === 'mirror.conflicted');
    if (step.stale) {
      conflicts++;
      expect(told, `step ${i + 1}: the writer is told`).toMatch(/stale copy/);
      expect(recorded.length, `step ${i + 1}`).toBe(conflicts);
      const last = recorded.at(-1)!.data as { path: string; agent: string; lost: unknown[]; runId: string | null };
      expect(last.path).toBe(step.file);
      expect(last.agent).toBe(cli);
      expect(last.runId).toBe(`${cli}-${sid}`);
      expect(last.lost.length).toBeGreaterThan(0);
      // The writer hears what its write would have lost.
      for (const l of last.lost as Array<{ message: string }>) expect(told).toContain(l.message);
      // baton's state won: the file is no longer what the model wrote.
      expect(fs.readFileSync(abs, 'utf8')).not.toBe(text);
    } else {
      expect(told, `step ${i + 1}`).toBeNull();
      expect(recorded.length).toBe(conflicts);
      // Taken as written: the model's bytes stay (its next edit of the file applies).
      expect(fs.readFileSync(abs, 'utf8')).toBe(text);
    }
    // The file and baton agree after every write.
    await agrees(m, id, t, out, w.dir);
    await m.close();
  }
  m = w.m();
  t.check(await m.get(id));
  // The mirror knows the files as they are: baton's next change rewrites them without a conflict.
  const before = fs.readFileSync(path.join(out, t.steps[0]!.file), 'utf8');
  const doing = (await m.get(id)).phases.find((p) => p.status === 'in_progress');
  if (doing) await m.phase(id, doing.id, 'complete');
  else await m.budgets.set(id, { tokens: 900_000 });
  await m.derivedFiles.flush();
  expect(settingsOf(await m.get(id)).mirrorError).toBeNull();
  expect(fs.readFileSync(path.join(out, t.steps[0]!.file), 'utf8')).not.toBe(before);
  await agrees(m, id, t, out, w.dir);
  await m.close();
}

describe('live sync: a toolkit file written by the model is imported in the same hook', () => {
  for (const t of [MAESTRO, BMIT, BMAD, CCW, GO_TEAM]) {
    it(
      `${t.format}: two conversations write ${t.steps[0]!.file} from stale copies; baton's state and the file end up agreeing, each conflict recorded and told`,
      () => played(t, inProcess),
      60_000,
    );
  }
  it('a write that puts back the bytes baton wrote changes nothing; a torn write is a conflict, and the file is whole again', async () => {
    const { w, out, id } = await mirrored(MAESTRO);
    const env = { BATON_SESSION: id, BATON_HOOK_AGENT_PID: String(process.pid), BATON_HOOK_KEEPER: 'off' };
    const abs = path.join(out, MAESTRO.steps[0]!.file);
    const whole = fs.readFileSync(abs, 'utf8');
    let m = w.m();
    const revision = (await m.get(id)).revision;
    await m.close();
    fs.writeFileSync(abs, whole);
    const same = await hookInProcess('claude', JSON.stringify(payload('claude', A, w.dir, abs, whole)), w.dir, env);
    expect(contextOf(same.stdout)).toBeNull();
    m = w.m();
    // Only the conversation's binding and run: no import, no file record of the toolkit's file.
    const added = (await m.log(id)).filter((e) => e.seq > revision).map((e) => e.type);
    expect(added.filter((x) => !['agent.bound', 'run.started'].includes(x))).toEqual([]);
    await m.close();
    // The model's write stopped half-way through the frontmatter.
    const torn = whole.slice(0, whole.indexOf('\nphases:') + 20);
    fs.writeFileSync(abs, torn);
    const r = await hookInProcess('gemini', JSON.stringify(payload('gemini', B, w.dir, abs, torn)), w.dir, env);
    expect(contextOf(r.stdout), contextOf(r.stdout) ?? '').toMatch(/no longer holds session 2026-11-28-auth/);
    expect(contextOf(r.stdout)).toMatch(/and rewrote/);
    m = w.m();
    const conflict = (await m.log(id)).filter((e) => e.type === 'mirror.conflicted');
    expect(conflict.map((e) => (e.data as { lost: Array<{ kind: string }> }).lost.map((l) => l.kind))).toEqual([
      ['unreadable'],
    ]);
    expect(fs.readFileSync(abs, 'utf8')).toBe(whole);
    expect(fs.readFileSync(`${abs}.torn`, 'utf8')).toBe(torn);
    await agrees(m, id, MAESTRO, out, w.dir);
    await m.close();
  }, 60_000);
  it(
    'through the built `baton hook` (dist/baton.cjs): the same Maestro conversation',
    () => played(MAESTRO, spawned),
    60_000,
  );
});
