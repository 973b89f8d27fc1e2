/**
 * The foreign session layouts as the manager offers them (`manager.formats`): import, export
 * and mirror sessions, read a toolkit's folder. The adapters and the export code (formats.ts)
 * load on first use, so surfaces that never touch a foreign layout never pay for them.
 */
import type { SessionState } from '../domain/state.js';
import type { ExportOptions, ExportResult, FormatsOptions, ImportOptions, ImportResult, InspectResult } from './formats.js';
import type { MirrorSetting } from './mirror.js';
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

/** Sessions in foreign layouts (`manager.formats`); each method's contract is the function of formats.ts it names. */
export class Formats {
  constructor(private readonly m: ManagerCore) {}

  /** See `importPath`. */
  async import(dir: string, format: string, o: ImportOptions): Promise<ImportResult> {
    return (await loadFormats()).importPath(this.m, dir, format, o);
  }

  /** See `exportSession`. */
  async export(id: string, format: string, out: string, o: ExportOptions): Promise<ExportResult> {
    return (await loadFormats()).exportSession(this.m, id, format, out, o);
  }

  /** See `setMirror`. */
  async setMirror(id: string, setting: { format: string; out: string } | null, o: FormatsOptions & { agent?: string | null; force?: boolean }): Promise<{ state: SessionState; mirror: MirrorSetting | null }> {
    return (await loadFormats()).setMirror(this.m, id, setting, o);
  }
}
