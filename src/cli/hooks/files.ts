import fs from 'node:fs';
import path from 'node:path';

/** Suffix of the copy of a config file as it was before baton last changed it. */
export const BACKUP_SUFFIX = '.baton-backup';

/** A config file's text, or null when it does not exist. */
export function readConfig(file: string): string | null {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw e;
  }
}

/**
 * Replaces a config file atomically (temp file beside it, fsync, rename, fsync of the
 * folder), keeping the previous file as `<file>.baton-backup` and its permission bits. A
 * crash leaves the old file or the new one, never a mix. `text === null` removes the file
 * (after the same backup). `keepBackup: false` (an uninstall) makes no backup and, once the
 * new file is in place, removes the one an install left: baton's entries are gone, and the
 * file now holds everything else the old one did.
 */
export function writeConfig(
  file: string,
  text: string | null,
  o: { keepBackup?: boolean } = {},
): { backup: string | null } {
  const keep = o.keepBackup !== false;
  const dir = path.dirname(file);
  fs.mkdirSync(dir, { recursive: true });
  let mode = 0o644;
  let backup: string | null = null;
  try {
    mode = fs.statSync(file).mode & 0o777;
    if (keep) {
      backup = `${file}${BACKUP_SUFFIX}`;
      fs.copyFileSync(file, backup);
    }
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
  }
  if (text === null) fs.rmSync(file, { force: true });
  else {
    const tmp = path.join(dir, `.${path.basename(file)}.baton-${process.pid}-${Date.now().toString(36)}`);
    try {
      const fd = fs.openSync(tmp, 'wx', mode);
      try {
        fs.writeFileSync(fd, text);
        fs.fsyncSync(fd);
      } finally {
        fs.closeSync(fd);
      }
      fs.renameSync(tmp, file);
    } catch (e) {
      fs.rmSync(tmp, { force: true });
      throw e;
    }
  }
  if (!keep) fs.rmSync(`${file}${BACKUP_SUFFIX}`, { force: true });
  const dfd = fs.openSync(dir, 'r');
  try {
    fs.fsyncSync(dfd);
  } finally {
    fs.closeSync(dfd);
  }
  return { backup };
}
