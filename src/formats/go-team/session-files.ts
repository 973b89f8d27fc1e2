/** The files of one Go Team session as read: registry entry, folder JSON files, team metrics. */
import type { ReadResult } from '../safe-dir.js';
import type { FormatProblem } from '../types.js';
import { hashSources, problem, str } from '../util.js';
import { join } from './layout.js';
import { type Ctx, load, type Loaded } from './load.js';

/** Files export writes back byte for byte: their documents are the text as read. */
const VERBATIM = /(^|\/)(cp-[^/]*|rollback-history)\.json$/;

/** The team's session-metrics.json, read once and shared by every session. */
export interface Metrics {
  path: string;
  doc: Record<string, unknown>;
}

/** Reads the team's metrics/session-metrics.json; null when missing or unreadable (reported). */
export async function readMetrics(ctx: Ctx, team: string): Promise<Metrics | null> {
  const path = join(team, 'metrics', 'session-metrics.json');
  const l = await load(ctx, path, null, ctx.problems);
  return l.doc ? { path, doc: l.doc } : null;
}

/**
 * The part of a shared file (registry, metrics) that belongs to one session, as a read for
 * {@link hashSources}: another session's heartbeat must not make this one look changed.
 */
export function pseudoRead(path: string, part: unknown): ReadResult {
  const bytes = Buffer.from(JSON.stringify(part), 'utf8');
  return { kind: 'ok', path, text: bytes.toString('utf8'), bytes, bom: false, crlf: false, mtimeMs: 0 };
}

/** The files of one session as read: the documents export gets back and the reads the hash covers. */
export interface SessionFiles {
  problems: FormatProblem[];
  documents: Record<string, unknown>;
  reads: ReadResult[];
  sources: string[];
  sdir: string;
  /** False when the folder is missing or leads outside PATH: only the registry entry was read. */
  safe: boolean;
  /** Records a loaded file as a source of the session. */
  take: (l: Loaded) => void;
  manifestL: Loaded;
  stateL: Loaded;
  recoveryL: Loaded;
  rollbackL: Loaded;
}

/** Reads the registry entry and the folder's JSON files of one session (not its checkpoints). */
export async function openSession(
  ctx: Ctx,
  id: string,
  entry: Record<string, unknown> | null,
  regPath: string,
  registry: Record<string, unknown> | null,
  folder: 'ok' | 'unsafe' | null,
): Promise<SessionFiles> {
  const problems: FormatProblem[] = [];
  const documents: Record<string, unknown> = {};
  const reads: ReadResult[] = [];
  const sources: string[] = [];
  if (registry && entry) {
    // Only this session's entry is kept: export merges it into the registry found at the destination.
    documents[regPath] = { ...registry, sessions: [entry] };
    sources.push(regPath);
    reads.push(pseudoRead(regPath, { entry, last_active_session: registry.last_active_session ?? null }));
  }
  const sdir = join(ctx.layout.cp, id);
  const check = await ctx.dir.check(sdir);
  let safe = check.ok && folder !== 'unsafe';
  if (!check.ok) problems.push({ ...check.problem, sessionId: id });
  else if (folder === 'unsafe')
    problems.push(
      problem(
        'UNSAFE_PATH',
        'error',
        `The folder of session ${id} is a link leading outside the inspected folder; its files were not read.`,
        { sessionId: id, path: sdir },
      ),
    );
  if (safe && folder === null) {
    // An abandoned session (*abandon: no resume) has nothing to restore from its folder: its
    // absence is a warning, not damage listed first (issue 27).
    const abandoned = entry !== null && (str(entry.status) === 'abandoned' || entry.resumable === false);
    problems.push(
      abandoned
        ? problem(
            'MISSING_FILE',
            'warning',
            `The folder ${sdir} of session ${id} is missing; the session is abandoned (not resumable), so nothing is lost for resuming. Only the registry entry was read.`,
            {
              sessionId: id,
              path: sdir,
              hint: 'Remove the entry from the registry, or restore the folder from git to keep its history.',
              details: { abandoned: true },
            },
          )
        : problem(
            'MISSING_FILE',
            'error',
            `The folder ${sdir} of session ${id} is missing; only the registry entry was read.`,
            { sessionId: id, path: sdir, hint: 'Restore the folder from git, or remove the entry from the registry.' },
          ),
    );
    safe = false;
  }

  const take = (l: Loaded) => {
    if (l.read.kind === 'missing' || l.read.kind === 'unsafe') return;
    sources.push(l.read.path);
    reads.push(l.read);
    // Checkpoints and the rollback history are written back as they are (export): their bytes
    // (BOM, CRLF, "0.0") are kept, not the parse, which would re-serialise them.
    if (l.read.kind === 'ok' && VERBATIM.test(l.read.path)) documents[l.read.path] = l.read.bytes.toString('utf8');
    else if (l.doc) documents[l.read.path] = l.doc;
    else if (l.read.kind === 'ok') documents[l.read.path] = l.read.text; // unparseable: kept verbatim
  };
  const none: Loaded = { read: { kind: 'missing', path: '' }, doc: null };
  const manifestL = safe
    ? await load(ctx, join(sdir, 'manifest.json'), id, problems, {
        missing: problem(
          'MISSING_FILE',
          'warning',
          `Session ${id} has no manifest.json; its checkpoints were read from the cp-*.json files alone.`,
          { sessionId: id, path: join(sdir, 'manifest.json') },
        ),
      })
    : none;
  const stateL = safe
    ? await load(ctx, join(sdir, 'state.json'), id, problems, {
        missing: problem(
          'MISSING_FILE',
          'info',
          `Session ${id} has no state.json (live auto-save); the live recovery option is unavailable.`,
          { sessionId: id, path: join(sdir, 'state.json') },
        ),
      })
    : none;
  const recoveryL = safe ? await load(ctx, join(sdir, 'recovery.json'), id, problems) : none;
  const rollbackL = safe ? await load(ctx, join(sdir, 'rollback-history.json'), id, problems) : none;
  for (const l of [manifestL, stateL, recoveryL, rollbackL]) take(l);
  return { problems, documents, reads, sources, sdir, safe, take, manifestL, stateL, recoveryL, rollbackL };
}
