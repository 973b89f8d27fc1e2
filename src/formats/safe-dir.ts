/**
 * Every file access of the foreign-format readers and writers goes through a {@link SafeDir}:
 * paths are resolved inside one root, and a path with `..`, an absolute path, or a link that
 * leads outside the root is refused with an `UNSAFE_PATH` problem instead of being followed.
 * Reads never modify anything (no atime-changing opens beyond the read itself, no repairs);
 * writes are atomic (unique temp file, fsync, rename, directory fsync).
 */
import { randomBytes } from 'node:crypto';
import { constants as fsConstants } from 'node:fs';
import type { Dirent } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { BatonError } from '../domain/errors.js';
import type { FormatProblem } from './problems.js';

/** Largest foreign file read whole; bigger ones are reported, not read (bounded memory). */
export const MAX_FOREIGN_FILE_BYTES = 32 * 1024 * 1024;

/** A file read through a {@link SafeDir}. */
export type ReadResult =
  | {
      kind: 'ok';
      /** Relative, '/'-separated. */
      path: string;
      /** Decoded UTF-8 with a leading BOM removed and CRLF turned into LF. */
      text: string;
      bytes: Buffer;
      bom: boolean;
      crlf: boolean;
      mtimeMs: number;
    }
  | { kind: 'missing'; path: string }
  | { kind: 'unsafe' | 'error'; path: string; problem: FormatProblem };

/** One entry of {@link SafeDir.list}. */
export interface DirEntry {
  name: string;
  /** Relative path of the entry, '/'-separated. */
  path: string;
  kind: 'file' | 'dir' | 'link' | 'other';
}

/** Result of {@link SafeDir.check}. */
export type PathCheck = { ok: true; rel: string; abs: string } | { ok: false; rel: string; problem: FormatProblem };

function unsafe(rel: string, why: string): FormatProblem {
  return {
    code: 'UNSAFE_PATH',
    severity: 'error',
    sessionId: null,
    path: rel,
    message: `The path ${JSON.stringify(rel)} ${why}; it was not followed.`,
    hint: 'Keep every path of the session relative to its folder, without "..", and without links that lead outside it.',
  };
}

/** True for the errors a read gets when the user running baton lacks permission. */
function isDenied(e: unknown): boolean {
  const code = (e as NodeJS.ErrnoException | null)?.code;
  return code === 'EACCES' || code === 'EPERM';
}

/**
 * `UNREADABLE`: the file or folder is there (or may be) but baton may not read it. Kept apart
 * from CORRUPT_FILE / MISSING_FILE because the content may be intact: the way out is fixing
 * permissions, never restoring a backup or starting fresh.
 */
export function unreadable(rel: string, what: 'file' | 'folder', e: unknown): FormatProblem {
  const code = (e as NodeJS.ErrnoException | null)?.code ?? 'EACCES';
  return {
    code: 'UNREADABLE',
    severity: 'error',
    sessionId: null,
    path: rel,
    message: `The ${what} ${rel === '' ? '(the inspected folder itself)' : rel} cannot be read: permission denied (${code}); its content is unknown, not damaged.`,
    hint: `Check the permissions of ${rel === '' ? 'the folder' : rel} (and of the folders above it) for the user running baton, then run again; do not restore a backup or start fresh because of this.`,
    details: { errno: code },
  };
}

function isInside(root: string, p: string): boolean {
  const r = path.relative(root, p);
  return r === '' || (!r.startsWith('..') && !path.isAbsolute(r));
}

/** A folder whose files may be read (and, for export, written) only inside it. */
export class SafeDir {
  private constructor(readonly root: string) {}

  /** Folders (and paths below unsearchable folders) a list/exists could not read, by path. */
  private readonly denied = new Map<string, FormatProblem>();

  /**
   * `UNREADABLE` problems for the folders that {@link list} and {@link exists} could not read
   * (they answer "empty" / "absent" so callers stay simple): an adapter adds these to its
   * report, so a permission problem is never mistaken for a missing session.
   */
  accessProblems(): FormatProblem[] {
    return [...this.denied.values()].map((p) => ({ ...p }));
  }

  /**
   * Opens `dir` (resolved against `cwd`). `NOT_FOUND` when it does not exist, `BAD_INPUT`
   * when it is not a directory. The root itself may be a link; what is inside may not lead out.
   */
  static async open(dir: string, cwd = process.cwd(), o: { create?: boolean } = {}): Promise<SafeDir> {
    const abs = path.resolve(cwd, dir);
    if (o.create) await fs.mkdir(abs, { recursive: true });
    let real: string;
    try {
      real = await fs.realpath(abs);
    } catch (e) {
      if (isDenied(e)) throw deniedFolder(abs, e);
      throw new BatonError('NOT_FOUND', `The folder ${abs} does not exist.`, {
        hint: 'Give the path of the folder that holds the sessions.',
      });
    }
    const st = await fs.stat(real);
    if (!st.isDirectory()) {
      throw new BatonError('BAD_INPUT', `${abs} is not a folder.`, {
        hint: 'Give the folder that holds the session files, not a file in it.',
      });
    }
    try {
      // An unreadable root would otherwise look like an empty folder ("no known layout").
      await fs.access(real, fsConstants.R_OK | fsConstants.X_OK);
    } catch (e) {
      throw deniedFolder(abs, e);
    }
    return new SafeDir(real);
  }

  /**
   * Checks a relative path: lexically (no absolute path, no `..`, no NUL) and on disk (each
   * existing component that is a link must resolve inside the root).
   */
  async check(relInput: string): Promise<PathCheck> {
    const rel = relInput.replace(/\\/g, '/');
    if (rel.includes('\0')) return { ok: false, rel, problem: unsafe(rel, 'holds a NUL byte') };
    if (path.isAbsolute(rel) || /^[A-Za-z]:\//.test(rel))
      return { ok: false, rel, problem: unsafe(rel, 'is absolute') };
    const parts = rel.split('/').filter((p) => p !== '' && p !== '.');
    if (parts.includes('..')) return { ok: false, rel, problem: unsafe(rel, 'climbs out with ".."') };
    let cur = this.root;
    for (const part of parts) {
      cur = path.join(cur, part);
      let st: Awaited<ReturnType<typeof fs.lstat>>;
      try {
        st = await fs.lstat(cur);
      } catch {
        break; // the rest does not exist yet: nothing to follow
      }
      if (st.isSymbolicLink()) {
        let target: string;
        try {
          target = await fs.realpath(cur);
        } catch {
          return { ok: false, rel, problem: unsafe(rel, 'goes through a broken link') };
        }
        if (!isInside(this.root, target))
          return { ok: false, rel, problem: unsafe(rel, `goes through a link to ${target}, outside the folder`) };
        cur = target;
      }
    }
    return { ok: true, rel: parts.join('/'), abs: path.join(this.root, ...parts) };
  }

  /** Reads a file; never throws for missing, unsafe, unreadable or oversized files. */
  async read(rel: string): Promise<ReadResult> {
    const c = await this.check(rel);
    if (!c.ok) return { kind: 'unsafe', path: c.rel, problem: c.problem };
    let bytes: Buffer;
    let mtimeMs: number;
    try {
      const st = await fs.stat(c.abs);
      if (!st.isFile())
        return {
          kind: 'error',
          path: c.rel,
          problem: {
            code: 'CORRUPT_FILE',
            severity: 'error',
            sessionId: null,
            path: c.rel,
            message: `${c.rel} is not a regular file.`,
            hint: null,
          },
        };
      if (st.size > MAX_FOREIGN_FILE_BYTES) {
        return {
          kind: 'error',
          path: c.rel,
          problem: {
            code: 'CORRUPT_FILE',
            severity: 'error',
            sessionId: null,
            path: c.rel,
            message: `${c.rel} is ${st.size} bytes, more than the ${MAX_FOREIGN_FILE_BYTES} baton reads.`,
            hint: 'Check whether the file is really a session file.',
          },
        };
      }
      bytes = await fs.readFile(c.abs);
      mtimeMs = st.mtimeMs;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return { kind: 'missing', path: c.rel };
      if (isDenied(e)) return { kind: 'error', path: c.rel, problem: unreadable(c.rel, 'file', e) };
      return {
        kind: 'error',
        path: c.rel,
        problem: {
          code: 'CORRUPT_FILE',
          severity: 'error',
          sessionId: null,
          path: c.rel,
          message: `${c.rel} cannot be read: ${(e as Error).message}.`,
          hint: 'Check the file permissions.',
        },
      };
    }
    let text = bytes.toString('utf8');
    const bom = text.charCodeAt(0) === 0xfeff;
    if (bom) text = text.slice(1);
    const crlf = text.includes('\r\n');
    if (crlf) text = text.replace(/\r\n/g, '\n');
    return { kind: 'ok', path: c.rel, text, bytes, bom, crlf, mtimeMs };
  }

  /**
   * Entries of a folder, sorted by name; `[]` when it is missing or unsafe (check first to
   * report) or unreadable (recorded for {@link accessProblems}).
   */
  async list(rel = ''): Promise<DirEntry[]> {
    const c = await this.check(rel);
    if (!c.ok) return [];
    let ents: Dirent[];
    try {
      ents = await fs.readdir(c.abs, { withFileTypes: true });
    } catch (e) {
      if (isDenied(e)) this.denied.set(c.rel, unreadable(c.rel, 'folder', e));
      return [];
    }
    return ents
      .map((e) => ({
        name: e.name,
        path: c.rel === '' ? e.name : `${c.rel}/${e.name}`,
        kind: e.isSymbolicLink()
          ? ('link' as const)
          : e.isDirectory()
            ? ('dir' as const)
            : e.isFile()
              ? ('file' as const)
              : ('other' as const),
      }))
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  /** True when the path exists inside the root (links resolved inside it). */
  async exists(rel: string): Promise<boolean> {
    const c = await this.check(rel);
    if (!c.ok) return false;
    try {
      await fs.stat(c.abs);
      return true;
    } catch (e) {
      // A folder above it is not searchable: report that folder, whose content is unknown.
      if (isDenied(e)) {
        const parent = c.rel.includes('/') ? c.rel.slice(0, c.rel.lastIndexOf('/')) : '';
        if (!this.denied.has(parent)) this.denied.set(parent, unreadable(parent, 'folder', e));
      }
      return false;
    }
  }

  /**
   * Writes `content` to `rel` atomically: unique temp file in the same folder, fsync, rename,
   * folder fsync. With `backup`, the current content (if any) is first kept as `<rel>.bak`,
   * also atomically. `BAD_INPUT` for an unsafe path.
   */
  async writeAtomic(rel: string, content: string, o: { backup?: boolean; mode?: number } = {}): Promise<void> {
    const c = await this.check(rel);
    if (!c.ok) throw new BatonError('BAD_INPUT', c.problem.message, { hint: c.problem.hint ?? undefined });
    await this.mkdirs(path.dirname(c.rel));
    if (o.backup) {
      let prev: Buffer | null = null;
      try {
        prev = await fs.readFile(c.abs);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
      }
      if (prev !== null) await this.replace(`${c.abs}.bak`, prev, o.mode);
    }
    await this.replace(c.abs, Buffer.from(content, 'utf8'), o.mode);
  }

  /** Removes a file inside the root; a missing file is fine. */
  async remove(rel: string): Promise<void> {
    const c = await this.check(rel);
    if (!c.ok) throw new BatonError('BAD_INPUT', c.problem.message, { hint: c.problem.hint ?? undefined });
    await fs.rm(c.abs, { force: true });
    await fsyncDir(path.dirname(c.abs));
  }

  private async mkdirs(relDir: string): Promise<void> {
    if (relDir === '.' || relDir === '') return;
    const c = await this.check(relDir);
    if (!c.ok) throw new BatonError('BAD_INPUT', c.problem.message, { hint: c.problem.hint ?? undefined });
    await fs.mkdir(c.abs, { recursive: true });
  }

  private async replace(abs: string, bytes: Buffer, mode = 0o644): Promise<void> {
    const tmp = `${abs}.tmp.${process.pid}.${randomBytes(4).toString('hex')}`;
    const fh = await fs.open(tmp, 'wx', mode);
    try {
      await fh.writeFile(bytes);
      await fh.datasync();
    } finally {
      await fh.close();
    }
    try {
      await fs.rename(tmp, abs);
    } catch (e) {
      await fs.rm(tmp, { force: true });
      throw e;
    }
    await fsyncDir(path.dirname(abs));
  }
}

function deniedFolder(abs: string, e: unknown): BatonError {
  const code = (e as NodeJS.ErrnoException | null)?.code ?? 'EACCES';
  return new BatonError('BAD_INPUT', `The folder ${abs} cannot be read: permission denied (${code}).`, {
    hint: 'Check the permissions of the folder (and of the folders above it) for the user running baton.',
    details: { path: abs, reason: 'UNREADABLE', errno: code },
  });
}

async function fsyncDir(dir: string): Promise<void> {
  const fh = await fs.open(dir, 'r');
  try {
    await fh.sync();
  } catch {
    // Some filesystems refuse fsync on a directory; the rename is still atomic.
  } finally {
    await fh.close();
  }
}
