/**
 * The checkpoints of one Go Team session: manifest entries merged with the `cp-*.json` files,
 * each file validated (shape, checksum), rollbacks applied, damage reported with a fallback.
 */
import type { ForeignCheckpoint, FormatProblem } from '../types.js';
import { arr, obj, problem, str } from '../util.js';
import { verifyChecksum } from './checksum.js';
import { join } from './layout.js';
import { type Ctx, type Loaded, load, time } from './load.js';
import type { RebuildableCheckpoint } from './resume.js';
import { parseCheckpointId, stepOf, TOTAL_STEPS } from './steps.js';

/** One checkpoint of a session, merged from its manifest entry and its file. */
export interface Cp {
  id: string;
  file: string | null;
  step: number | null;
  subStep: string | null;
  iteration: boolean;
  createdAt: string | null;
  invalidatedBy: string | null;
  /** Why it cannot be used (corrupt, missing, marked invalid), null when it can (or is only invalidated). */
  problem: string | null;
  /** How its checksum compares (checksum.ts): ok, missing, mismatch (a digest matching no canonical form: damaged) or unverified (no digest); null when unread. */
  checksum: 'ok' | 'missing' | 'mismatch' | 'unverified' | null;
  /** Git state it records (`git{branch, commit_hash, staged_files}`), null when none. */
  git: { branch: string | null; commit: string | null; staged: string[] } | null;
  doc: Record<string, unknown> | null;
}

/** Merges manifest entries and cp-*.json files into checkpoints, validating each file. */
export async function readCheckpoints(
  ctx: Ctx,
  id: string,
  sdir: string,
  manifest: Record<string, unknown> | null,
  problems: FormatProblem[],
  take: (l: Loaded) => void,
): Promise<Cp[]> {
  const files = (await ctx.dir.list(sdir)).filter(
    (f) => /^cp-.*\.json$/.test(f.name) && (f.kind === 'file' || f.kind === 'link'),
  );
  const fileIds = files.map((f) => f.name.slice(0, -'.json'.length));
  const used = new Set<string>();
  const out: Cp[] = [];
  const entries = manifest ? arr(manifest.checkpoints).map(obj) : [];
  const fromEntry = new Map<string, Record<string, unknown>>();
  for (const en of entries) {
    const cid = str(en.id);
    if (cid === null) continue;
    let fid = fileIds.find((f) => f === cid) ?? null;
    if (fid === null)
      fid = fileIds.find((f) => !used.has(f) && (f.startsWith(`${cid}-`) || cid.startsWith(`${f}-`))) ?? null;
    if (fid !== null) used.add(fid);
    fromEntry.set(cid, en);
    out.push(await readCp(ctx, id, sdir, cid, fid, en, problems, take));
  }
  for (const f of fileIds) if (!used.has(f)) out.push(await readCp(ctx, id, sdir, f, f, null, problems, take));
  return out.sort(
    (a, b) =>
      (a.step ?? 99) - (b.step ?? 99) ||
      (a.createdAt ?? '').localeCompare(b.createdAt ?? '') ||
      a.id.localeCompare(b.id),
  );
}

async function readCp(
  ctx: Ctx,
  id: string,
  sdir: string,
  cid: string,
  fid: string | null,
  en: Record<string, unknown> | null,
  problems: FormatProblem[],
  take: (l: Loaded) => void,
): Promise<Cp> {
  const info = parseCheckpointId(cid) ?? (fid ? parseCheckpointId(fid) : null);
  const cp: Cp = {
    id: cid,
    file: null,
    step: stepOf(en?.step) ?? info?.step ?? null,
    subStep: info?.subStep ?? null,
    iteration: info?.iteration ?? false,
    createdAt: str(en?.timestamp) ?? null,
    invalidatedBy: str(en?.invalidated_by),
    problem: null,
    checksum: null,
    git: null,
    doc: null,
  };
  if (fid === null) {
    // A checkpoint invalidated by a rollback may have been removed: nothing is lost then.
    if (cp.invalidatedBy === null) cp.problem = 'is listed in manifest.json but its file is missing';
    return cp;
  }
  const rel = join(sdir, `${fid}.json`);
  cp.file = rel;
  const check = await ctx.dir.check(rel);
  if (!check.ok) {
    problems.push({ ...check.problem, sessionId: id });
    cp.problem = 'is a link leading outside the inspected folder (not followed)';
    return cp;
  }
  const l = await load(ctx, rel, id, problems, { quiet: true });
  take(l);
  if (!l.doc) {
    cp.problem = l.read.kind === 'ok' && l.read.text.trim() === '' ? 'is empty' : 'does not parse as a JSON object';
    return cp;
  }
  const d = l.doc;
  cp.doc = d;
  cp.createdAt ??= str(d.created_at);
  const fileStep = stepOf(d.step_number);
  if (cp.step === null) cp.step = fileStep;
  const shape: string[] = [];
  if (d.step_number === undefined) shape.push('no step_number');
  else if (fileStep === null) shape.push(`step_number ${JSON.stringify(d.step_number)} is not 1–9`);
  else if (info && fileStep !== info.step)
    shape.push(`step_number ${fileStep} does not match its id (step ${info.step})`);
  if (d.session_id !== undefined && str(d.session_id) !== id)
    shape.push(`session_id ${JSON.stringify(d.session_id)} is not ${id}`);
  if (d.state !== undefined && (d.state === null || typeof d.state !== 'object' || Array.isArray(d.state)))
    shape.push('state is not an object');
  if (d.state === undefined) shape.push('no state');
  // A file that contradicts its manifest entry is corrupt (docs/formats/go-team.md: the manifest indexes the checkpoints).
  if (en) {
    const enStep = stepOf(en.step);
    if (enStep !== null && fileStep !== null && enStep !== fileStep)
      shape.push(`step_number ${fileStep} contradicts manifest.json (step ${enStep})`);
    if (str(en.step_name) !== null && str(d.step_name) !== null && str(en.step_name) !== str(d.step_name))
      shape.push(
        `step_name ${JSON.stringify(d.step_name)} contradicts manifest.json (${JSON.stringify(en.step_name)})`,
      );
    if (str(d.id) !== null && str(d.id) !== cid && !(fid !== null && str(d.id) === fid))
      shape.push(`id ${JSON.stringify(d.id)} contradicts manifest.json (${cid})`);
  }
  const g = obj(d.git);
  if (d.git !== undefined && d.git !== null)
    cp.git = { branch: str(g.branch), commit: str(g.commit_hash), staged: arr(g.staged_files).map(String) };
  const text = l.read.kind === 'ok' ? l.read.text : null;
  const sum = verifyChecksum(d, text);
  cp.checksum = sum.result;
  if (sum.result === 'missing') {
    problems.push(
      problem(
        'MISSING_FIELD',
        'info',
        `Checkpoint ${cid} of session ${id} has no checksum; it could not be verified.`,
        { sessionId: id, path: rel, details: { field: 'checksum', assumed: 'unverified' } },
      ),
    );
  } else if (sum.result === 'unverified') {
    // A placeholder is no digest (the Go Team repository's example files carry such): nothing to check, a doubt.
    problems.push(
      problem(
        'CHECKSUM_UNVERIFIED',
        'warning',
        `Checkpoint ${cid} of session ${id} has a checksum that is no sha256 digest (${JSON.stringify(d.checksum)}); it is usable but unverified.`,
        {
          sessionId: id,
          path: rel,
          details: { checkpoint: cid, checksum: d.checksum },
          hint: 'Compare it with its git commit before restoring it, if the content matters.',
        },
      ),
    );
  }
  if (cp.invalidatedBy === null) cp.invalidatedBy = str(d.invalidated_by);
  if (shape.length > 0) cp.problem = `has a wrong shape (${shape.join('; ')})`;
  // Go Team's validation includes the checksum: a digest matching no canonical form (Python's
  // json.dumps included) means the content is not what was hashed.
  else if (sum.result === 'mismatch') cp.problem = 'fails its checksum (the content is not what was hashed)';
  else if ((d.valid === false || en?.valid === false) && cp.invalidatedBy === null)
    cp.problem = 'is marked invalid (valid: false)';
  return cp;
}

/** One rollback, from the manifest or rollback-history.json. */
export interface Rollback {
  id: string | null;
  timestamp: string | null;
  fromCheckpoint: string | null;
  fromStep: number | null;
  toCheckpoint: string | null;
  toStep: number | null;
  reason: string | null;
}

/** The rollbacks of both sources, without duplicates, oldest first. */
export function collectRollbacks(
  manifest: Record<string, unknown> | null,
  history: Record<string, unknown> | null,
): Rollback[] {
  const out: Rollback[] = [];
  const seen = new Set<string>();
  for (const r of [...arr(manifest?.rollback_history), ...arr(history?.history)].map(obj)) {
    const rb: Rollback = {
      id: str(r.id),
      timestamp: str(r.timestamp),
      fromCheckpoint: str(r.from_checkpoint),
      fromStep: stepOf(r.from_step),
      toCheckpoint: str(r.to_checkpoint),
      toStep:
        stepOf(r.to_step) ??
        (str(r.to_checkpoint) ? (parseCheckpointId(str(r.to_checkpoint) as string)?.step ?? null) : null),
      reason: str(r.reason),
    };
    const key = rb.id ?? `${rb.timestamp}|${rb.fromCheckpoint}|${rb.toCheckpoint}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(rb);
  }
  return out.sort((a, b) => (a.timestamp ?? '').localeCompare(b.timestamp ?? ''));
}

/** A rollback to step N invalidates the checkpoints after N taken before it (no roll-forward). */
export function applyRollbacks(
  id: string,
  cps: Cp[],
  rollbacks: Rollback[],
  problems: FormatProblem[],
  sdir: string,
): void {
  for (const rb of rollbacks) {
    if (rb.toStep === null) continue;
    const at = time(rb.timestamp);
    for (const c of cps) {
      if (c.invalidatedBy !== null || c.step === null || c.step <= rb.toStep) continue;
      const ct = time(c.createdAt);
      if (at !== null && ct !== null && ct > at) continue; // taken after the rollback: a new line of work
      c.invalidatedBy = rb.id ?? `rollback at ${rb.timestamp ?? '?'}`;
      problems.push(
        problem(
          'BAD_VALUE',
          'warning',
          `Checkpoint ${c.id} of session ${id} is still marked valid though rollback ${c.invalidatedBy} to step ${rb.toStep} invalidated it; it is treated as invalidated.`,
          {
            sessionId: id,
            path: join(sdir, 'manifest.json'),
            details: { checkpoint: c.id, rollback: c.invalidatedBy },
          },
        ),
      );
    }
  }
}

/**
 * The checkpoints that can be restored (sound, not invalidated, step known); every damaged
 * one is reported with the last valid checkpoint to fall back to.
 */
export function usableCheckpoints(id: string, sdir: string, cps: Cp[], problems: FormatProblem[]): Cp[] {
  const usableCps = cps.filter((c) => c.problem === null && c.invalidatedBy === null && c.step !== null);
  for (const c of cps) {
    if (c.problem === null) continue;
    const fallback =
      [...usableCps]
        .reverse()
        .find(
          (u) =>
            (u.step as number) < (c.step ?? TOTAL_STEPS + 1) ||
            (u.step === c.step && u !== c && (u.createdAt ?? '') < (c.createdAt ?? '~')),
        ) ?? null;
    problems.push(
      problem(
        'CORRUPT_CHECKPOINT',
        'error',
        `Checkpoint ${c.id} of session ${id} ${c.problem}; it cannot be restored.`,
        {
          sessionId: id,
          path: c.file ?? join(sdir, 'manifest.json'),
          details: {
            checkpoint: c.id,
            step: c.step,
            reason: c.problem,
            fallback: fallback?.id ?? null,
            commit: c.git?.commit ?? null,
          },
          // Seed 001 / docs/formats/go-team.md: "Corrupt checkpoint ⇒ mark invalid, fall back to last valid (N-1) or rebuild from git".
          hint: `${fallback ? `Fall back to the last valid checkpoint, ${fallback.id} (step ${fallback.step})` : 'No earlier valid checkpoint'}${c.git?.commit ? `, or rebuild it from its commit ${c.git.commit} (*cp-rebuild:${c.step ?? '?'})` : fallback ? '' : ': rebuild it from git (*cp-rebuild) or start fresh'}.`,
        },
      ),
    );
  }
  return usableCps;
}

/** The newest usable checkpoint of each step: "the valid checkpoint" of that step. */
function currentOfStep(usable: Cp[]): Set<Cp> {
  const by = new Map<number, Cp>();
  for (const c of usable) if (c.step !== null) by.set(c.step, c);
  return new Set(by.values());
}

/**
 * Every checkpoint invalidated by a recorded rollback, reported with the rollback that did it
 * and the valid checkpoint of its step, if any (seed 001 / docs/formats/go-team.md "Rollback: … invalidate
 * later checkpoints (`valid:false`, `invalidated_by`), cannot roll forward").
 */
export function reportInvalidated(id: string, sdir: string, cps: Cp[], usable: Cp[], problems: FormatProblem[]): void {
  const current = [...currentOfStep(usable)];
  for (const c of cps) {
    if (c.invalidatedBy === null || c.problem !== null) continue;
    const valid = current.find((u) => u.step === c.step) ?? null;
    problems.push(
      problem(
        'INVALIDATED_CHECKPOINT',
        'info',
        `Checkpoint ${c.id} of session ${id} was invalidated by rollback ${c.invalidatedBy}; ${valid ? `the valid checkpoint of step ${c.step} is ${valid.id}` : `step ${c.step ?? '?'} has no valid checkpoint (it must be redone)`}.`,
        {
          sessionId: id,
          path: c.file ?? join(sdir, 'manifest.json'),
          details: { checkpoint: c.id, rollback: c.invalidatedBy, step: c.step, valid: valid?.id ?? null },
          hint: 'Never restore it: Go Team cannot roll forward past a rollback.',
        },
      ),
    );
  }
}

/** The checkpoints as inspect reports them (ForeignSession.checkpoints). */
export function checkpointRecords(cps: Cp[], usable: Cp[]): ForeignCheckpoint[] {
  const current = currentOfStep(usable);
  return cps.map((c) => ({
    id: c.id,
    unitId: c.step === null ? null : String(c.step),
    createdAt: c.createdAt,
    valid: c.problem === null && c.invalidatedBy === null,
    problem: c.problem ?? (c.invalidatedBy ? `invalidated by rollback ${c.invalidatedBy}` : null),
    invalidatedBy: c.invalidatedBy,
    current: current.has(c),
    checksum: c.checksum,
    git: c.git ? { branch: c.git.branch, commit: c.git.commit } : null,
    name: str(c.doc?.step_name),
  }));
}

/**
 * The damaged checkpoints that can be rebuilt from git (`*cp-rebuild:N`): from the commit the
 * file still names; else, for the newest checkpoint when its file no longer shows its commit,
 * from recovery.json `git_state.last_commit`, the branch head Go Team recorded at the
 * interruption (each checkpoint commits, so the newest checkpoint's commit is that head unless
 * work was committed after it). That checkpoint's CORRUPT_CHECKPOINT is told so (issue 27).
 */
export function rebuildableCheckpoints(
  _id: string,
  cps: Cp[],
  recovery: Record<string, unknown> | null,
  problems: FormatProblem[],
): RebuildableCheckpoint[] {
  const damaged = cps.filter((c) => c.problem !== null && c.invalidatedBy === null && c.step !== null);
  const out: RebuildableCheckpoint[] = damaged
    .filter((c) => c.git?.commit)
    .map((c) => ({
      id: c.id,
      step: c.step as number,
      commit: c.git!.commit!,
      branch: c.git!.branch,
      problem: c.problem!,
      commitFrom: 'checkpoint' as const,
    }));
  const gs = obj(obj(recovery).git_state);
  const last = str(gs.last_commit);
  if (!last) return out;
  const newest = cps
    .filter((c) => c.step !== null && c.invalidatedBy === null)
    .sort((a, b) => (a.step as number) - (b.step as number) || (a.createdAt ?? '').localeCompare(b.createdAt ?? ''))
    .at(-1);
  if (!newest || !damaged.includes(newest) || newest.git?.commit) return out;
  out.push({
    id: newest.id,
    step: newest.step as number,
    commit: last,
    branch: newest.git?.branch ?? str(gs.branch),
    problem: newest.problem!,
    commitFrom: 'recovery',
  });
  const p = problems.find((x) => x.code === 'CORRUPT_CHECKPOINT' && x.details?.checkpoint === newest.id);
  if (p) {
    p.details = { ...p.details, commit: last, commitFrom: 'recovery.json git_state.last_commit' };
    p.hint =
      `${p.hint ?? ''} Its file no longer shows its commit, but recovery.json records the last commit, ${last} (git_state.last_commit): rebuild it from there (*cp-rebuild:${newest.step}).`.trim();
  }
  return out;
}
