/**
 * The foreign session layouts as the manager offers them (`manager.formats`): import, export
 * and mirror sessions, read a toolkit's folder. The adapters and the export code (formats.ts)
 * load on first use, so surfaces that never touch a foreign layout never pay for them.
 */
import type { SessionState } from '../domain/state.js';
import type { ExportOptions, ExportResult, ForeignFormats, FormatsOptions, ImportOptions, ImportResult, InspectResult } from './formats.js';
import type { MirrorSetting } from './mirror.js';
import type { OnProgress } from './progress.js';
import type { ManagerCore } from './types.js';

/** The foreign-layout code (formats.ts), loaded on first use. */
export function loadFormats(): Promise<typeof import('./formats.js')> {
  return import('./formats.js');
}

/** Reads a toolkit's folder without a store: see formats.ts `inspectPath`. */
export async function inspectForeign(dir: string, format: string, o: FormatsOptions): Promise<InspectResult> {
  return (await loadFormats()).inspectPath(dir, format, o);
}

/** Checks a mirror request before anything is written: see formats.ts `mirrorSetting`. */
export async function checkMirrorSetting(format: string, out: string, o: FormatsOptions): Promise<MirrorSetting> {
  return (await loadFormats()).mirrorSetting(format, out, o);
}

/** True when an import left a session out or incomplete: see formats.ts `importIncomplete`. */
export async function importIsIncomplete(r: ImportResult): Promise<boolean> {
  return (await loadFormats()).importIncomplete(r);
}

/**
 * Sessions in foreign layouts (`manager.formats`). The work is done by formats.ts's
 * {@link ForeignFormats} (same method names, contracts in its JSDoc), loaded on first use.
 */
export class Formats {
  private heavy: ForeignFormats | null = null;

  constructor(private readonly m: ManagerCore) {}

  private async impl(): Promise<ForeignFormats> {
    return (this.heavy ??= new (await loadFormats()).ForeignFormats(this.m));
  }

  /** Imports every session under `dir` (see ForeignFormats.import). */
  async import(dir: string, format: string, o: ImportOptions): Promise<ImportResult> {
    return (await this.impl()).import(dir, format, o);
  }

  /** Writes session `id` in `format` under `out` (see ForeignFormats.export). */
  async export(id: string, format: string, out: string, o: ExportOptions): Promise<ExportResult> {
    return (await this.impl()).export(id, format, out, o);
  }

  /**
   * Writes every live (not archived) session in `format` under `out`, one after the other, as
   * {@link export} does each; stops at the first that fails. `onProgress` is told before the
   * first and after each one.
   */
  async exportAll(format: string, out: string, o: ExportOptions & { onProgress?: OnProgress }): Promise<ExportResult[]> {
    const ids = (await this.m.list({})).map((r) => r.id);
    const results: ExportResult[] = [];
    o.onProgress?.({ done: 0, total: ids.length, item: null });
    for (const id of ids) {
      results.push(await this.export(id, format, out, o));
      o.onProgress?.({ done: results.length, total: ids.length, item: id });
    }
    return results;
  }

  /** Sets or (null) turns off the mirror of session `id` (see ForeignFormats.setMirror). */
  async setMirror(id: string, setting: { format: string; out: string } | null, o: FormatsOptions & { agent?: string | null; force?: boolean }): Promise<{ state: SessionState; mirror: MirrorSetting | null }> {
    return (await this.impl()).setMirror(id, setting, o);
  }
}
