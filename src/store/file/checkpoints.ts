import fs from 'node:fs';
import path from 'node:path';
import { BatonError } from '../../domain/errors.js';
import { MAX_ID_LENGTH } from '../../domain/ids.js';
import { checkpointExists, checkpointNotFound } from '../errors.js';
import { compareCheckpointIds } from '../types.js';
import type { Checkpoint, CheckpointRead } from '../types.js';
import { decodeRecord, encodeRecord } from './codec.js';
import { DIR_MODE, fsyncDir, writeTemp } from '../atomic-write.js';
import { removeStaleTemps } from './fsutil.js';
import type { Layout } from './paths.js';
import { isPlainDir } from './paths.js';

/** Version of the checkpoint file format this code writes (`v`). */
export const CHECKPOINT_FORMAT_VERSION = 1;
/** Largest checkpoint file read; a bigger one is reported invalid rather than loaded. */
export const MAX_CHECKPOINT_BYTES = 256 * 1024 * 1024;

const ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

/** A checkpoint as stored: one checksummed JSON line, like a snapshot. */
interface CheckpointRecord extends Checkpoint {
  format: 'baton.checkpoint';
  v: number;
}

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
    const { format: _f, v: _v, ...fields } = cp as CheckpointRecord;
    const rec: CheckpointRecord = {
      format: 'baton.checkpoint',
      v: CHECKPOINT_FORMAT_VERSION,
      id: fields.id,
      sessionId: fields.sessionId,
      name: fields.name,
      createdAt: fields.createdAt,
      revision: fields.revision,
      trigger: fields.trigger,
      phaseId: fields.phaseId,
      git: fields.git,
      files: fields.files,
      state: fields.state,
    };
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
      throw new BatonError('CORRUPT', `The checkpoints folder of session ${this.sessionId} is not a plain directory (a link?).`, {
        hint: `Links inside .baton are not followed; replace ${this.dir} with a real directory.`,
        details: { sessionId: this.sessionId, path: this.dir },
      });
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
      return invalid(checkpointId, `cannot be read (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`, null);
    }
    const modifiedAt = st.mtime.toISOString();
    if (st.isSymbolicLink()) return invalid(checkpointId, 'is a symbolic link (links inside .baton are not followed)', modifiedAt);
    if (!st.isFile()) return invalid(checkpointId, 'is not a regular file', modifiedAt);
    if (st.size === 0) return invalid(checkpointId, 'is empty', modifiedAt);
    if (st.size > MAX_CHECKPOINT_BYTES) return invalid(checkpointId, `is ${st.size} bytes, more than the ${MAX_CHECKPOINT_BYTES} read`, modifiedAt);
    let raw: string;
    try {
      const fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW);
      try {
        raw = fs.readFileSync(fd).toString('utf8');
      } finally {
        fs.closeSync(fd);
      }
    } catch (e) {
      return invalid(checkpointId, `cannot be read (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`, modifiedAt);
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
    if (typeof r.v !== 'number' || r.v > CHECKPOINT_FORMAT_VERSION) return `has format ${String(r.v)}; this baton reads up to ${CHECKPOINT_FORMAT_VERSION}`;
    if (r.id !== checkpointId) return `holds checkpoint ${JSON.stringify(r.id)}, not ${checkpointId}`;
    if (r.sessionId !== this.sessionId) return `belongs to session ${JSON.stringify(r.sessionId)}`;
    if (typeof r.revision !== 'number' || !Number.isInteger(r.revision) || r.revision < 1) return 'has no valid revision';
    if (typeof r.state !== 'object' || r.state === null || r.state.revision !== r.revision) return `its state is missing or not at revision ${r.revision}`;
    if (typeof r.name !== 'string' || typeof r.createdAt !== 'string' || !Array.isArray(r.files)) return 'lacks its name, time or file list';
    const { format: _f, v: _v, ...cp } = r as CheckpointRecord;
    return { ...cp, git: cp.git ?? null, trigger: cp.trigger ?? 'manual', phaseId: cp.phaseId ?? null };
  }
}

function invalid(id: string, problem: string, modifiedAt: string | null): CheckpointRead {
  return { id, valid: false, problem, modifiedAt };
}

