import fs from 'node:fs';
import path from 'node:path';
import type { CheckpointFile, CheckpointGit } from '../store/types.js';
import { Git } from './git.js';
import type { GitRunner } from './git.js';
import { nodeCrypto } from './lazy.js';

const CHUNK = 1024 * 1024;

/**
 * The folder a session works in (the one holding `.baton`): where recorded file paths are
 * resolved and hashed, and where git is asked about branch, HEAD and uncommitted changes.
 */
export class Workspace {
  readonly git: Git;

  /**
   * @param root the workspace folder
   * @param storeDir the store folder inside it, if any: git changes there do not count
   */
  constructor(
    readonly root: string,
    storeDir: string | null = null,
    runner?: GitRunner,
  ) {
    this.git = new Git(root, storeDir, runner);
  }

  /** Branch, HEAD and dirty flag, or null outside a git work tree. */
  gitInfo(): CheckpointGit | null {
    const st = this.git.status();
    return st ? { branch: st.branch, head: st.head, dirty: st.dirty.length > 0 } : null;
  }

  /**
   * Branch, HEAD and dirty flag, as {@link gitInfo}; on a dirty tree also `snapshot`, a commit
   * holding the work tree as it is (Git.snapshot), so a restore can bring it back. A snapshot
   * that cannot be made is `null`, and `onError` hears why. Null outside a git work tree.
   */
  gitState(message: string, onError: (e: unknown) => void): CheckpointGit | null {
    const st = this.git.status();
    if (!st) return null;
    const info: CheckpointGit = { branch: st.branch, head: st.head, dirty: st.dirty.length > 0 };
    if (!info.dirty) return info;
    try {
      return { ...info, snapshot: this.git.snapshot(st.top, st.head, message) };
    } catch (e) {
      onError(e);
      return { ...info, snapshot: null };
    }
  }

  /** Absolute path of a recorded path (recorded relative to the root, or absolute). */
  resolve(p: string): string {
    return path.isAbsolute(p) ? p : path.resolve(this.root, p);
  }

  /**
   * sha256 and size of a file now, read in chunks so a large file costs no more memory than
   * a small one; null for a missing, unreadable or non-regular file.
   */
  hashFile(p: string): CheckpointFile {
    const abs = this.resolve(p);
    let fd: number;
    try {
      // Non-blocking, so a named pipe nobody writes to is opened at once (and then skipped
      // as non-regular) instead of hanging the command or the MCP server for good.
      fd = fs.openSync(abs, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
    } catch {
      return { path: p, sha256: null, size: null };
    }
    try {
      if (!fs.fstatSync(fd).isFile()) return { path: p, sha256: null, size: null };
      const hash = nodeCrypto().createHash('sha256');
      const buf = Buffer.allocUnsafe(CHUNK);
      let size = 0;
      for (;;) {
        const n = fs.readSync(fd, buf, 0, CHUNK, null);
        if (n === 0) break;
        hash.update(buf.subarray(0, n));
        size += n;
      }
      return { path: p, sha256: hash.digest('hex'), size };
    } catch {
      return { path: p, sha256: null, size: null };
    } finally {
      fs.closeSync(fd);
    }
  }
}
