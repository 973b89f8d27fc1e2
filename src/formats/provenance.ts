/**
 * Where an imported session came from (its provenance record in the session's metadata):
 * apart from import.ts so that reading it (the resume plan, on every CLI start) loads no
 * hashing and no import code.
 */
import type { SessionState } from '../domain/state.js';
import type { FormatName } from './types.js';

/** Session metadata key of the provenance record. */
export const PROVENANCE_KEY = 'provenance';

/** Where an imported session came from (session metadata `provenance`). */
export interface Provenance {
  format: FormatName;
  /** The toolkit's own id of the session. */
  foreignId: string;
  /** Absolute folder that was imported. */
  root: string;
  /** Main file of the session, relative to `root`. */
  path: string;
  sourceHash: string;
  importedAt: string;
  /** The parsed foreign documents, verbatim: what an exporter merges onto. */
  documents: Record<string, unknown>;
  /** Times made up because the foreign file had none (see ExportInput.untimed). */
  untimed: string[];
  /**
   * sha256 of the session's work as imported ({@link workHash}): an export finds out from it
   * whether baton changed anything since, and if not writes the position and update-time
   * fields back as they were. Absent in provenance written before it existed.
   */
  workHash?: string;
  /**
   * Recorded file paths the toolkit keeps relative to a folder of its own (ForeignFile.base):
   * path → that folder, relative to `root`. The resume plan measures them there.
   */
  fileBases?: Record<string, string>;
  /**
   * The time made up for each `untimed` key. A phase that baton later starts or completes
   * gets a real time, which then no longer equals this one (see `stillUntimed`). Absent in
   * provenance written before it existed: every listed key then stays untimed.
   */
  untimedAt?: Record<string, string>;
}

/** The provenance of a session, or null when it was not imported. */
export function provenanceOf(state: SessionState): Provenance | null {
  const p = state.metadata[PROVENANCE_KEY] as Partial<Provenance> | undefined;
  if (!p || typeof p !== 'object' || typeof p.format !== 'string' || typeof p.foreignId !== 'string') return null;
  return p as Provenance;
}
