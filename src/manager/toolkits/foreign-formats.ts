/**
 * The foreign session layouts as the manager offers them (`manager.formats`): import, export
 * and mirror sessions, read a toolkit's folder. The adapters and the export code (formats.ts)
 * load on first use, so surfaces that never touch a foreign layout never pay for them (loaded
 * at start-up they cost `tokens add` 4% more CPU time, which its BENCHMARKS.md row needs). A
 * loader has the name of the function of formats.ts it calls (`checkMirrorSetting`), and each
 * method names in its JSDoc the function whose JSDoc states the contract.
 */
import type { SessionState } from '../../domain/state.js';
import type {
  ExportOptions,
  ExportResult,
  FormatsOptions,
  ImportOptions,
  ImportResult,
  InspectResult,
} from './formats.js';
import type { MirrorSetting } from './mirror.js';
import type { OnProgress } from '../progress.js';
import type { ManagerCore } from '../types.js';

/** The foreign-layout code (formats.ts), loaded on first use. */
export function loadFormats(): Promise<typeof import('./formats.js')> {
  return import('./formats.js');
}

/** Checks a mirror request before anything is written (see formats.ts `checkMirrorSetting`). */
export async function checkMirrorSetting(format: string, out: string, o: FormatsOptions): Promise<MirrorSetting> {
  return (await loadFormats()).checkMirrorSetting(format, out, o);
}

/**
 * True when an import did not bring the whole folder into baton: an error-severity problem
 * (of the folder or a session: a damaged file, `UNKNOWN_FORMAT`, `IMPORT_FAILED`…) or no
 * session imported at all. The CLI exits 10 (`CORRUPT`) then, as `inspect` does.
 */
export function importIsIncomplete(r: ImportResult): boolean {
  if ([...r.problems, ...r.sessions.flatMap((s) => s.problems)].some((p) => p.severity === 'error')) return true;
  return !r.sessions.some((s) => s.action !== 'skipped');
}

/**
 * Sessions in foreign layouts (`manager.formats`). Each method loads formats.ts on first use
 * and calls the function named in its JSDoc, which states the contract.
 */
export class Formats {
  constructor(private readonly m: ManagerCore) {}

  /**
   * Reads every session under `dir` in `format` (or `auto`), changing nothing (formats.ts
   * `inspectFolder`). It needs no store, so it is also `Formats.inspect`, for a caller without a
   * manager (`baton inspect` in a folder with no store): one operation, one name.
   */
  static async inspect(dir: string, format: string, o: FormatsOptions): Promise<InspectResult> {
    return (await loadFormats()).inspectFolder(dir, format, o);
  }

  /** Reads every session under `dir` in `format` (or `auto`), changing nothing: {@link Formats.inspect}. */
  inspect(dir: string, format: string, o: FormatsOptions): Promise<InspectResult> {
    return Formats.inspect(dir, format, o);
  }

  /** Imports every session under `dir` (formats.ts `importFolder`). */
  async import(dir: string, format: string, o: ImportOptions): Promise<ImportResult> {
    return (await loadFormats()).importFolder(this.m, dir, format, o);
  }

  /** Writes session `id` in `format` under `out` (formats.ts `exportInto`). */
  async export(id: string, format: string, out: string, o: ExportOptions): Promise<ExportResult> {
    return (await loadFormats()).exportInto(this.m, id, format, out, o);
  }

  /**
   * Writes every live (not archived) session in `format` under `out`, one after the other, as
   * {@link export} does each; stops at the first that fails. `onProgress` is told before the
   * first and after each one.
   */
  async exportAll(
    format: string,
    out: string,
    o: ExportOptions & { onProgress?: OnProgress },
  ): Promise<ExportResult[]> {
    const ids = (await this.m.list({})).map((r) => r.id);
    const results: ExportResult[] = [];
    o.onProgress?.({ done: 0, total: ids.length, item: null });
    for (const id of ids) {
      results.push(await this.export(id, format, out, o));
      o.onProgress?.({ done: results.length, total: ids.length, item: id });
    }
    return results;
  }

  /** Sets or (null) turns off the mirror of session `id` (formats.ts `mirrorSession`). */
  async setMirror(
    id: string,
    setting: { format: string; out: string } | null,
    o: FormatsOptions & { agent?: string | null; force?: boolean },
  ): Promise<{ state: SessionState; mirror: MirrorSetting | null }> {
    return (await loadFormats()).mirrorSession(this.m, id, setting, o);
  }
}
