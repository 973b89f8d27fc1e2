/**
 * Agent CLI conversations as runs (docs/runs.md, docs/hooks.md): a conversation's run id,
 * the phase a conversation takes when its model ran `baton phase start|claim` through its
 * shell tool (or BATON_PHASE said so), and the conflicts of two live runs writing one file.
 * Pure: liveness comes from the caller.
 */
import { draft } from '../decide.js';
import type { EventDraft } from '../decide.js';
import { findRun, liveRuns, runLabel } from './runs.js';
import type { Liveness } from './runs.js';
import type { FileConflict, FileRecord, SessionState } from '../state.js';

/** A conversation run lapses this long after its keeper's last renewal (other hosts then see it dead). */
export const CONVERSATION_TTL_MS = 120_000;

/** How often a conversation's keeper renews its run (well within the TTL). */
export const CONVERSATION_RENEW_MS = 40_000;

/** The run id of a conversation: stable, so every hook of that conversation finds its run. */
export function conversationRunId(cli: string, agentSessionId: string): string {
  const id = agentSessionId.replace(/[^A-Za-z0-9._:-]/g, '_').slice(0, 120);
  return `${cli}-${id}`;
}

/**
 * A phase named by a shell command the model ran: `baton phase start|claim <phase>` (also
 * through `npx baton`, a path to baton, or `--session X` before the phase). Null when the
 * command is not one of those, or names no phase (a claim of the first free phase: the
 * phase the command chose is not known from the command alone).
 */
export function phaseFromCommand(command: string): { verb: 'start' | 'claim'; phase: string | null } | null {
  const valued = /^--(session|agent|dir|store|workspace|reason|max-retries|run)$/;
  for (const part of command.split(/&&|\|\||;|\n/)) {
    const words = part
      .trim()
      .split(/\s+/)
      .map((w) => w.replace(/^['"]|['"]$/g, ''));
    const at = words.findIndex((w) => /(^|\/)baton(\.cjs)?$/.test(w));
    // baton must be the command run (`npx baton`, `node …/baton.cjs`, `VAR=x baton`), not an argument (`echo baton …`).
    if (
      at < 0 ||
      !words
        .slice(0, at)
        .every((w) => /^(npx|env|exec|time|sudo|node|pnpm|yarn|bunx)$/.test(w) || /^[A-Za-z_][A-Za-z0-9_]*=/.test(w))
    )
      continue;
    // Options before the command (`baton --session s1 phase start x`).
    let j = at + 1;
    while (words[j]?.startsWith('-')) j += !words[j]!.includes('=') && valued.test(words[j]!) ? 2 : 1;
    if (words[j] !== 'phase' || (words[j + 1] !== 'start' && words[j + 1] !== 'claim')) continue;
    const verb = words[j + 1] as 'start' | 'claim';
    const rest = words.slice(j + 2);
    const args: string[] = [];
    for (let i = 0; i < rest.length; i++) {
      const w = rest[i]!;
      if (w.startsWith('--')) {
        if (!w.includes('=') && valued.test(w)) i++;
        continue;
      }
      if (w.startsWith('-')) continue;
      if (/^[|>&<]/.test(w)) break;
      args.push(w);
    }
    return { verb, phase: args[0] ?? null };
  }
  return null;
}

/**
 * The run takes phase `phaseId` (in progress: the model started it through its shell, or
 * BATON_PHASE names it): `phase.claimed` unless it owns it already, or another live run does
 * (then nothing: its owner keeps it). A pending phase is not started here.
 */
export function decideConversationTakes(s: SessionState, runId: string, phaseId: string, l: Liveness): EventDraft[] {
  const p = s.phases.find((x) => x.id === phaseId);
  if (p?.status !== 'in_progress' || p.owner === runId) return [];
  if (p.owner && p.owner !== runId && liveRuns(s, l).some((r) => r.id === p.owner)) return [];
  return [draft('phase.claimed', { phaseId: p.id, runId, from: p.owner ?? null })];
}

/** A path another live run wrote last, with that run and the phase of its record. */
export interface Conflict {
  path: string;
  otherRunId: string;
  otherPhaseId: string | null;
}

/** Latest record of each path (phases and loose files) with its phase. */
function latest(s: SessionState): Map<string, { rec: FileRecord; phaseId: string | null }> {
  const all: Array<{ rec: FileRecord; phaseId: string | null }> = s.phases.flatMap((p) =>
    p.files.map((rec) => ({ rec, phaseId: p.id })),
  );
  for (const rec of s.looseFiles ?? []) all.push({ rec, phaseId: null });
  all.sort((a, b) => (a.rec.recordedAt < b.rec.recordedAt ? -1 : a.rec.recordedAt > b.rec.recordedAt ? 1 : 0));
  return new Map(all.map((x) => [x.rec.path, x]));
}

/**
 * Paths run `runId` writes whose last record was made in another run that is live now: each
 * a `file.conflicted` (on `phaseId`, this run's phase) and a conflict to warn the writer of.
 */
export function decideConflicts(
  s: SessionState,
  runId: string,
  paths: readonly string[],
  phaseId: string | null,
  l: Liveness,
): { events: EventDraft[]; conflicts: Conflict[] } {
  const live = new Set(liveRuns(s, l).map((r) => r.id));
  const last = latest(s);
  const conflicts: Conflict[] = [];
  for (const path of new Set(paths)) {
    const known = last.get(path);
    const other = known?.rec.run;
    if (!other || other === runId || !live.has(other)) continue;
    conflicts.push({ path, otherRunId: other, otherPhaseId: known.phaseId });
  }
  return {
    events: conflicts.map((c) =>
      draft('file.conflicted', {
        path: c.path,
        phaseId,
        runId,
        otherRunId: c.otherRunId,
        otherPhaseId: c.otherPhaseId,
      }),
    ),
    conflicts,
  };
}

/** The warning a conversation gets in its context when it wrote a file another live run is working on. */
export function conflictWarning(s: SessionState, conflicts: readonly Conflict[]): string | null {
  if (!conflicts.length) return null;
  const lines = conflicts.map((c) => {
    const r = findRun(s, c.otherRunId);
    return `${c.path} was last written by ${r ? runLabel(r) : c.otherRunId}${c.otherPhaseId ? `, working on phase ${c.otherPhaseId}` : ''}`;
  });
  return `[baton] Conflict: another live agent works on the file${conflicts.length > 1 ? 's' : ''} you just wrote: ${lines.join('; ')}. Coordinate before writing it again (baton status shows the runs); the session recorded the conflict.`;
}

/**
 * The resume plan's notes on the files two runs wrote (`file.conflicted`), one per path, the
 * last conflict of each: who wrote it last and over whose work, so the next agent checks the
 * file before building on it. Empty when the session recorded none.
 */
export function conflictNotes(s: SessionState): string[] {
  const last = new Map<string, FileConflict>();
  for (const c of s.conflicts ?? []) last.set(c.path, c);
  const who = (id: string | null, phase: string | null): string => {
    const r = id ? findRun(s, id) : undefined;
    return `${r ? runLabel(r) : (id ?? 'a run')}${phase ? ` (phase ${phase})` : ''}`;
  };
  return [...last.values()].map(
    (c) =>
      `Conflict: ${c.path} was written by ${who(c.runId, c.phaseId)} over the work of ${who(c.otherRunId, c.otherPhaseId)}; check it holds what both need.`,
  );
}
