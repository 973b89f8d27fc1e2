/**
 * CCW's session backups (`<session>/.backups/session-YYYY-MM-DD-HH-MM.json`): listing them
 * newest first and the time in their names.
 */
import type { SafeDir } from '../safe-dir.js';

/** Most backups read per session (newest first); older ones are only listed. */
export const MAX_BACKUPS_READ = 20;

const BACKUP_RE = /^session-(\d{4})-(\d{2})-(\d{2})-(\d{2})-(\d{2})\.json$/;

/** Backup files of a session folder, newest first (their names sort by time). */
export async function listBackups(dir: SafeDir, folder: string): Promise<string[]> {
  return (await dir.list(`${folder}/.backups`))
    .filter((e) => e.kind === 'file' && /^session-.*\.json$/.test(e.name))
    .map((e) => e.path)
    .sort()
    .reverse();
}

/** The time in a backup's name (session-YYYY-MM-DD-HH-MM.json), as ISO, or null. */
export function backupTime(path: string): string | null {
  const m = BACKUP_RE.exec(path.split('/').pop() ?? '');
  return m ? `${m[1]}-${m[2]}-${m[3]}T${m[4]}:${m[5]}:00.000Z` : null;
}
