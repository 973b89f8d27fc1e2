/**
 * The outside-edits part of the resume plan: files of completed phases that changed, vanished
 * or reappeared since they were recorded, and the three ways to deal with them. A checkpoint
 * restore is not one: it puts back the session's record, never the files, so the plan would
 * report the same edits after it. Pure.
 */
import { hint } from '../hints.js';
import type { Hint } from '../hints.js';
import { list } from '../phrasing.js';
import type { GitCopy, OutsideEditChoice, OutsideEditFile, OutsideEdits, PhaseFiles } from './resume-plan-types.js';
import type { SessionState } from '../state.js';

function isOutside(kind: string): kind is OutsideEditFile['kind'] {
  return kind === 'changed' || kind === 'vanished' || kind === 'reappeared';
}

/**
 * The outside edits of `touchedDone` (file groups of completed phases) and the choices for
 * them: accept them into the record, put the files back with git, or keep going. Null when
 * there are none.
 */
export function outsideEdits(
  s: SessionState,
  touchedDone: PhaseFiles[],
  status: string,
  copies: GitCopy[] = [],
): OutsideEdits | null {
  const phases = touchedDone
    .filter((g): g is PhaseFiles & { phaseId: string } => g.phaseId !== null)
    .map((g) => ({
      phaseId: g.phaseId,
      files: g.files.flatMap((f) => (isOutside(f.kind) ? [{ path: f.path, kind: f.kind }] : [])),
    }))
    .filter((g) => g.files.length > 0);
  if (!phases.length) return null;
  const all = phases.flatMap((g) => g.files);
  const of = (kind: OutsideEditFile['kind'], files: OutsideEditFile[]): string[] =>
    files.filter((f) => f.kind === kind).map((f) => f.path);
  const accept: Hint[] = phases.map((g) =>
    hint('files.accept', {
      session: s.id,
      phase: g.phaseId,
      modified: of('changed', g.files),
      deleted: of('vanished', g.files),
      created: of('reappeared', g.files),
    }),
  );
  const recorded = new Map(touchedDone.flatMap((g) => g.files.map((f) => [f.path, f.recordedSha256] as const)));
  const restore = restoreHint([...of('changed', all), ...of('vanished', all)], of('reappeared', all), recorded, copies);
  const them = all.length === 1 ? 'the file' : 'the files';
  const choices: OutsideEditChoice[] = [
    {
      kind: 'accept',
      summary: `The edits are wanted: record ${them} again as ${all.length === 1 ? 'it is' : 'they are'} now, as work of ${list(phases.map((g) => g.phaseId))}; the plan then stops reporting ${all.length === 1 ? 'it' : 'them'}.`,
      hints: accept,
    },
    {
      kind: 'restore-files',
      summary: `The edits are not wanted: put ${them} back as recorded, with git (restoring a checkpoint puts back the session's record, not the files).`,
      hints: [restore],
    },
    {
      kind: 'keep-going',
      summary: `Decide later: continue as is; the plan reports ${them} until ${all.length === 1 ? 'it is' : 'they are'} accepted or put back.`,
      hints: status === 'active' ? [] : [hint('resume.apply', { session: s.id })],
    },
  ];
  return { phases, choices };
}

/**
 * The hint that puts `back` (changed and vanished files) as recorded: each from the newest
 * commit known to hold it with its recorded hash, else with a plain checkout (unverified).
 */
function restoreHint(
  back: string[],
  remove: string[],
  recorded: ReadonlyMap<string, string | null>,
  copies: GitCopy[],
): Hint {
  const from = new Map<string, string[]>();
  const checkout: string[] = [];
  for (const p of back) {
    const sha = recorded.get(p) ?? null;
    const copy = sha === null ? undefined : copies.find((c) => c.files[p] === sha);
    if (copy) from.set(copy.commit, [...(from.get(copy.commit) ?? []), p]);
    else checkout.push(p);
  }
  if (!from.size) return hint('files.restore-git', { checkout, remove });
  return hint('files.restore-git', { checkout, remove, from: [...from].map(([commit, paths]) => ({ commit, paths })) });
}
