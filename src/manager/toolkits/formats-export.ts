/**
 * Writing sessions into foreign layouts: export into a folder, and a session's mirror (set,
 * checked, rewritten after each change). Loaded with formats.ts on first use.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { BatonError } from '../../domain/errors.js';
import { hint } from '../../domain/hints.js';
import type { SessionState } from '../../domain/state.js';
import { toolkitGuard } from '../../domain/toolkits/toolkit-guard.js';
import { namedAdapter } from '../../formats/detect.js';
import { exportInput, runExport } from '../../formats/export.js';
import { provenanceOf } from '../../formats/import.js';
import type { ExportOutcome } from '../../formats/export.js';
import { ADAPTERS } from '../../formats/registry.js';
import { SafeDir } from '../../formats/safe-dir.js';
import type { FormatAdapter, FormatName, WritePlan } from '../../formats/types.js';
import { mirrorOf, readMirrorRecord, writeMirrorRecord } from './mirror.js';
import type { MirrorSetting } from './mirror.js';
import type { ManagerCore as SessionManager } from '../types.js';

/** What the format operations need from outside. */
export interface FormatsOptions {
  /** Folder relative paths are resolved against. */
  cwd: string;
  now?: () => Date;
  /** The adapters to use (default: every registered one). */
  adapters?: readonly FormatAdapter[];
}

/** The adapters in use: the options' own, else every registered one. */
export function adaptersOf(o: FormatsOptions): readonly FormatAdapter[] {
  return o.adapters ?? ADAPTERS;
}

/** Result of {@link exportInto}. */
export interface ExportResult extends ExportOutcome {
  id: string;
  format: FormatName;
  foreignId: string;
  /** Absolute output folder. */
  out: string;
}

/** Options of {@link exportInto}. */
export interface ExportOptions extends FormatsOptions {
  /**
   * Sees the checked write plan before anything is written; throwing refuses the export with
   * nothing written (the mirror uses it to keep files someone else changed).
   */
  guard?: (plan: WritePlan, out: SafeDir) => Promise<void>;
  /** Write a finished session into its toolkit's archive although the toolkit requires a step first. */
  force?: boolean;
}

/** Opens (creating it if needed) an output folder; `BAD_INPUT` when the path is a file. */
export async function openOut(out: string, cwd: string): Promise<SafeDir> {
  // An empty path would resolve to the working directory: never write there by accident.
  if (out.trim() === '')
    throw new BatonError('BAD_INPUT', '--out needs a folder to export into; got an empty path.', {
      hint: 'Give a folder to export into (it is created when missing); "." names the current folder.',
    });
  const abs = path.resolve(cwd, out);
  let st: fs.Stats | null = null;
  try {
    st = fs.statSync(abs);
  } catch {
    st = null;
  }
  if (st && !st.isDirectory()) {
    throw new BatonError('BAD_INPUT', `--out ${abs} is a file, not a folder.`, {
      hint: 'Give a folder to export into (it is created when missing).',
    });
  }
  return SafeDir.open(abs, cwd, { create: true });
}

/**
 * Writes session `id` in `format` under `out` (created when missing), by the toolkit's own
 * write rules (the adapter's plan, run through SafeDir: atomic replace, `.bak` when the plan
 * asks, removals). Returns the paths written.
 */
export async function exportInto(
  m: SessionManager,
  id: string,
  format: string,
  out: string,
  o: ExportOptions,
): Promise<ExportResult> {
  const adapter = namedAdapter(format, adaptersOf(o), { allowAuto: false });
  const state = await m.get(id);
  // Finished in baton, the session goes to the toolkit's archive: where its own toolkit refuses
  // to put it while a step it requires is not done (toolkit-guard.ts).
  if ((state.archived || state.status === 'completed') && provenanceOf(state)?.format === adapter.name)
    toolkitGuard(state, 'export', { force: o.force === true });
  const dir = await openOut(out, o.cwd);
  const input = exportInput(state, adapter.name, (o.now ?? (() => new Date()))());
  const outcome = await runExport(adapter, input, dir, o.guard);
  return { id, format: adapter.name, foreignId: input.foreignId, out: dir.root, ...outcome };
}

/** Checks a mirror request: the layout must be available and `out` must not be a file; `out` is made absolute. */
export function checkMirrorSetting(format: string, out: string, o: FormatsOptions): MirrorSetting {
  const adapter = namedAdapter(format, adaptersOf(o), { allowAuto: false });
  const abs = path.resolve(o.cwd, out);
  if (fs.existsSync(abs) && !fs.statSync(abs).isDirectory()) {
    throw new BatonError('BAD_INPUT', `The mirror folder ${abs} is a file, not a folder.`, {
      hint: 'Give the folder the toolkit reads its session files from.',
    });
  }
  return { format: adapter.name, out: abs };
}

/**
 * Sets (or, with null, turns off) the mirror of session `id`: from then on every change made
 * through a surface that flushes mirrors ({@link MirrorFiles}) rewrites the session's files
 * in `format` under `out`. The layout must be available and `out` must not be a file.
 * A rewrite does not replace a mirrored file changed since baton wrote it (see
 * {@link MirrorFiles}); `force` makes the next rewrite replace the files regardless.
 */
export async function mirrorSession(
  m: SessionManager,
  id: string,
  setting: { format: string; out: string } | null,
  o: FormatsOptions & { agent?: string | null; force?: boolean },
): Promise<{ state: SessionState; mirror: MirrorSetting | null }> {
  const value = setting ? checkMirrorSetting(setting.format, setting.out, o) : null;
  // Forgetting what baton wrote makes the next rewrite a first one, which replaces the files.
  if (o.force === true) await writeMirrorRecord(m, id, await m.get(id), null);
  const r = await m.setSettings(
    id,
    (s) => {
      if (!value && !mirrorOf(s))
        throw new BatonError('INVALID_TRANSITION', `Session ${id} has no mirror.`, {
          hint: hint('mirror.set', { session: id }),
        });
      return { mirror: value };
    },
    { agent: o.agent ?? null },
  );
  return { state: r.state, mirror: value };
}

function sha256(b: Buffer | string): string {
  return crypto.createHash('sha256').update(b).digest('hex');
}

/**
 * Refuses (`CONFLICT`) a plan that would replace or remove a file whose bytes are no longer
 * those baton last wrote. A missing file holds nothing to lose; a path baton never wrote is
 * the toolkit's or a first export's, written as `baton export` would.
 */
async function checkUnchanged(
  plan: WritePlan,
  dir: SafeDir,
  known: Record<string, string>,
  id: string,
  setting: MirrorSetting,
): Promise<void> {
  const changed: string[] = [];
  for (const rel of [...plan.writes.map((w) => w.path), ...plan.removes]) {
    const want = known[rel];
    if (want === undefined) continue;
    const r = await dir.read(rel);
    if (r.kind === 'missing') continue;
    if (r.kind !== 'ok' || sha256(r.bytes) !== want) changed.push(rel);
  }
  if (!changed.length) return;
  const files = changed.map((c) => path.join(dir.root, c));
  const them = files.length > 1 ? 'them' : 'it';
  throw new BatonError(
    'CONFLICT',
    `${files.join(', ')} changed since baton last wrote ${them} (the toolkit or a person wrote there); the mirror of ${id} did not overwrite ${them}.`,
    {
      hint: `Take the changes into baton with \`baton import --format ${setting.format} ${setting.out}\` (mirroring then resumes), or overwrite them with \`baton mirror ${setting.format} --out ${setting.out} --force --session ${id}\`.`,
      details: { paths: changed },
    },
  );
}

/**
 * One rewrite of session `id`'s mirror (what {@link MirrorFiles.flush} does per session):
 * exports it in `setting.format` under `setting.out` unless a file it would replace or remove
 * changed since baton last wrote it (`CONFLICT`, nothing written), then remembers the hash of
 * every file written ({@link MirrorRecord}).
 */
export async function rewriteOnce(
  m: SessionManager,
  id: string,
  state: SessionState,
  setting: MirrorSetting,
  o: FormatsOptions,
): Promise<ExportResult> {
  const rec = await readMirrorRecord(m, id, state);
  const known = rec && rec.format === setting.format && rec.out === setting.out ? rec.files : null;
  let plan: WritePlan | null = null;
  const r = await exportInto(m, id, setting.format, setting.out, {
    ...o,
    guard: async (p, dir) => {
      plan = p;
      if (known) await checkUnchanged(p, dir, known, id, setting);
    },
  });
  const done = plan as WritePlan | null;
  const files: Record<string, string> = { ...(known ?? {}) };
  for (const w of done?.writes ?? []) files[w.path] = sha256(Buffer.from(w.content, 'utf8'));
  for (const x of done?.removes ?? []) delete files[x];
  await writeMirrorRecord(m, id, await m.get(id), { format: setting.format, out: setting.out, files });
  // What the layout cannot hold is said at the mirror's first write, not again after every change.
  return known ? { ...r, problems: r.problems.filter((p) => p.code !== 'NOT_REPRESENTED') } : r;
}
