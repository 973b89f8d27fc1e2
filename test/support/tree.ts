/** Snapshots of a folder tree, for proofs that a command left files untouched. */
import fs from 'node:fs';
import path from 'node:path';

/** One entry of a {@link snapshotTree}: bytes (base64; a link's target), mtime and mode. */
export interface TreeEntry {
  bytes: string;
  mtimeMs: number;
  mode: number;
}

/** Every file, folder (`name/`) and symlink under `root` with its bytes, mtime and mode. */
export function snapshotTree(root: string): Record<string, TreeEntry> {
  const out: Record<string, TreeEntry> = {};
  const walk = (dir: string): void => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name);
      const rel = path.relative(root, p);
      const st = fs.lstatSync(p);
      if (e.isDirectory()) {
        out[`${rel}/`] = { bytes: '', mtimeMs: st.mtimeMs, mode: st.mode };
        walk(p);
      } else if (e.isSymbolicLink()) {
        out[rel] = { bytes: fs.readlinkSync(p), mtimeMs: st.mtimeMs, mode: st.mode };
      } else {
        out[rel] = { bytes: fs.readFileSync(p).toString('base64'), mtimeMs: st.mtimeMs, mode: st.mode };
      }
    }
  };
  walk(root);
  return out;
}

/** The regular files (and what links point to) under `dir`: relative path -> bytes (base64) and mtime. */
export function snapshotFiles(dir: string): Map<string, { bytes: string; mtimeMs: number }> {
  const out = new Map<string, { bytes: string; mtimeMs: number }>();
  const walk = (d: string): void => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else
        out.set(path.relative(dir, p), {
          bytes: fs.readFileSync(p).toString('base64'),
          mtimeMs: fs.lstatSync(p).mtimeMs,
        });
    }
  };
  walk(dir);
  return out;
}
