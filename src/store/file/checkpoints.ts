import fs from 'node:fs';
import { BatonError } from '../../domain/errors.js';
import { MAX_ID_LENGTH } from '../../domain/ids.js';
import { checkpointExists, checkpointNotFound } from '../errors.js';
import { checkpointFromRecord, checkpointRecord } from '../checkpoint-record.js';
import type { CheckpointRecord } from '../checkpoint-record.js';
import { compareCheckpointIds } from '../types.js';
import type { Checkpoint, CheckpointRead } from '../types.js';
import { decodeRecord, encodeRecord } from './codec.js';
import { DIR_MODE, fsyncDir, writeTemp } from '../atomic-write.js';
import { removeStaleTemps } from './fsutil.js';
import type { Layout } from './paths.js';
import { isPlainDir } from './paths.js';

/** Largest checkpoint file read; a bigger one is reported invalid rather than loaded. */
export const MAX_CHECKPOINT_BYTES = 256 * 1024 * 1024;

const ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

/**
 * Checkpoint files of one session folder: `checkpoints/<cpid>.json`, each written once
 * (temp file, fsync, hard link to its final name so an existing one is never replaced,
 * directory fsync) and read back with its checksum checked.
 */
export class CheckpointFiles {
  constructor(
    private readonly layout: Layout,
    private readonly sessionId: string,
    private readonly sessionDir: string,
  ) {}

  private get dir(): string {
    return this.layout.checkpointsDir(this.sessionDir);
  }

  /** Writes a new checkpoint; `EXISTS` when one with its id is there already. */
  save(cp: Checkpoint): void {
    const target = this.layout.checkpointFile(this.sessionDir, cp.id);
    const dir = this.dir;
    if (!fs.existsSync(dir)) {
      fs.mkdirSync(dir, { mode: DIR_MODE, recursive: true });
      fsyncDir(this.sessionDir);
    }
    this.assertPlainDir();
    removeStaleTemps(dir); // checkpoint writes whose process died before linking them
    // One checksummed JSON line, like a snapshot.
    const rec = checkpointRecord(cp);
    const tmp = writeTemp(target, `${encodeRecord(rec)}\n`);
    try {
      // A hard link appears under the final name in one step and fails if the name is taken:
      // a checkpoint is never half-written and never overwritten, even by a racing process.
      fs.linkSync(tmp, target);
    } catch (e) {
      fs.rmSync(tmp, { force: true });
      if ((e as NodeJS.ErrnoException).code === 'EEXIST') throw checkpointExists(this.sessionId, cp.id);
      throw e;
    }
    fs.rmSync(tmp, { force: true });
    fsyncDir(dir);
  }

  /** Every checkpoint file, checked, in creation order. */
  list(): CheckpointRead[] {
    let names: string[];
    try {
      names = fs.readdirSync(this.dir);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw e;
    }
    this.assertPlainDir();
    return names
      .filter((n) => n.endsWith('.json'))
      .map((n) => n.slice(0, -5))
      .filter((id) => id.length <= MAX_ID_LENGTH && ID_PATTERN.test(id) && !id.includes('..'))
      .sort(compareCheckpointIds)
      .map((id) => this.read(id, false))
      .filter((r): r is CheckpointRead => r !== null);
  }

  /** One checkpoint, checked; `NOT_FOUND` when there is no such file. */
  get(checkpointId: string): CheckpointRead {
    const r = this.read(checkpointId, true);
    if (!r) throw checkpointNotFound(this.sessionId, checkpointId);
    return r;
  }

  private assertPlainDir(): void {
    if (!isPlainDir(this.dir)) {
      throw new BatonError(
        'CORRUPT',
        `The checkpoints folder of session ${this.sessionId} is not a plain directory (a link?).`,
        {
          hint: `Links inside .baton are not followed; replace ${this.dir} with a real directory.`,
          details: { sessionId: this.sessionId, path: this.dir },
        },
      );
    }
  }

  private read(checkpointId: string, checkDir: boolean): CheckpointRead | null {
    const file = this.layout.checkpointFile(this.sessionDir, checkpointId);
    if (checkDir && fs.existsSync(this.dir)) this.assertPlainDir();
    let st: fs.Stats;
    try {
      st = fs.lstatSync(file);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
      return invalid(
        checkpointId,
        `cannot be read (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`,
        null,
      );
    }
    const modifiedAt = st.mtime.toISOString();
    if (st.isSymbolicLink())
      return invalid(checkpointId, 'is a symbolic link (links inside .baton are not followed)', modifiedAt);
    if (!st.isFile()) return invalid(checkpointId, 'is not a regular file', modifiedAt);
    if (st.size === 0) return invalid(checkpointId, 'is empty', modifiedAt);
    if (st.size > MAX_CHECKPOINT_BYTES)
      return invalid(checkpointId, `is ${st.size} bytes, more than the ${MAX_CHECKPOINT_BYTES} read`, modifiedAt);
    let raw: string;
    try {
      const fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW);
      try {
        raw = fs.readFileSync(fd).toString('utf8');
      } finally {
        fs.closeSync(fd);
      }
    } catch (e) {
      return invalid(
        checkpointId,
        `cannot be read (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`,
        modifiedAt,
      );
    }
    const problem = this.check(checkpointId, raw);
    if (typeof problem === 'string') return invalid(checkpointId, problem, modifiedAt);
    return { id: checkpointId, valid: true, checkpoint: problem };
  }

  /** The checkpoint in `raw`, or what is wrong with it. */
  private check(checkpointId: string, raw: string): Checkpoint | string {
    const text = raw.endsWith('\n') ? raw.slice(0, -1) : raw;
    if (text.includes('\n')) return 'has more than one line (edited by hand?)';
    const d = decodeRecord(text);
    if (!d.ok) return raw.endsWith('\n') ? d.reason : `${d.reason} (the file is cut short)`;
    const r = d.value as Partial<CheckpointRecord>;
    if (r.format !== 'baton.checkpoint') return 'is not a checkpoint file';
    return checkpointFromRecord(r, this.sessionId, checkpointId);
  }
}

function invalid(id: string, problem: string, modifiedAt: string | null): CheckpointRead {
  return { id, valid: false, problem, modifiedAt };
}
