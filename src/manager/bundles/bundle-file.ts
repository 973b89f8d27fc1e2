/**
 * The session bundle file (`baton export --bundle`): one session as one checksummed file a
 * person can carry to another machine or store. Pure encoding and checking here; reading the
 * store and writing the receiver's are in bundle.ts. Layout (docs/storage.md):
 *
 *   line 1: the body, one JSON object ({@link BundleBody}), `format` and `v` first
 *   line 2: `{"sha256":"<hex>"}`, the sha256 of line 1's bytes (its newline included)
 *
 * Any changed byte, and a file cut short, fails the checksum: the file is refused whole.
 */
import { hint } from '../../domain/hints.js';
import { nodeCrypto } from '../lazy.js';
import path from 'node:path';
import { BatonError } from '../../domain/errors.js';
import type { StoredEvent } from '../../domain/events.js';
import type { CheckpointRecord } from '../../store/checkpoint-record.js';

/** The `format` of a bundle's body. */
export const BUNDLE_FORMAT = 'baton.bundle';
/** How every bundle file begins (the body's first key). */
const BUNDLE_START = `{"format":"${BUNDLE_FORMAT}"`;
/** Version of the bundle layout this code writes (`v`); it reads this one and older. */
export const BUNDLE_VERSION = 1;

/** A key path inside the body (`['events', 3, 'data', 'path']`) of a string made relative to the source root. */
export type BundlePointer = Array<string | number>;

/** What a bundle holds. Paths under the source repository root are stored relative to it (see `relative`). */
export interface BundleBody {
  format: typeof BUNDLE_FORMAT;
  v: number;
  /** baton version that wrote it. */
  baton: string;
  sessionId: string;
  title: string;
  /** When the bundle was written (ISO). */
  createdAt: string;
  /** Where it came from; never an absolute path. */
  source: {
    /** The last part of the source repository root's path (e.g. `my-app`). */
    rootName: string;
    git: { branch: string | null; head: string | null } | null;
    /** The session was archived there. */
    archived: boolean;
  };
  /** The session's journal, as stored (seq kept), with paths made relative. */
  events: StoredEvent[];
  /** Its checkpoints as stored records (store/checkpoint-record.ts), paths made relative. */
  checkpoints: CheckpointRecord[];
  /** Large durable-step results kept beside the journal, by sha256. */
  stepResults: Record<string, string>;
  /** Where in `events` and `checkpoints` a path was made relative (re-rooted on import). */
  relative: BundlePointer[];
  /** The handoff briefing at export, with what the receiver must do. */
  handoff: string;
}

function sha256(text: string): string {
  return nodeCrypto().createHash('sha256').update(text).digest('hex');
}

/** The bundle file's text for `body`. */
export function encodeBundle(body: BundleBody): { text: string; sha256: string } {
  const line = `${JSON.stringify(body)}\n`;
  const sum = sha256(line);
  return { text: `${line}${JSON.stringify({ sha256: sum })}\n`, sha256: sum };
}

function corrupt(file: string, why: string): BatonError {
  return new BatonError('CORRUPT', `The bundle ${file} is damaged: ${why}. Nothing was imported.`, {
    hint: 'The file changed or was cut short after it was exported (a partial download or copy, an edit). Ask the sender for the file again, or to export the bundle anew.',
    details: { file },
  });
}

/**
 * Checks and parses a bundle file's text: `CORRUPT` when the checksum line is missing or does
 * not match (a changed byte, a truncated file) or the body is no bundle; `UNSUPPORTED_VERSION`
 * when a newer baton wrote it.
 */
export function decodeBundle(text: string, file: string): BundleBody {
  // Every bundle begins so (`format` first): a file that does not is some other file, not a damaged bundle.
  if (!text.startsWith(BUNDLE_START))
    throw new BatonError('BAD_INPUT', `${file} is not a baton session bundle: it does not begin as one does.`, {
      hint: hint('bundle.not-a-bundle'),
      details: { file },
    });
  const nl = text.indexOf('\n');
  if (nl < 0) throw corrupt(file, 'it has no checksum line (cut short?)');
  const line = text.slice(0, nl + 1);
  const rest = text.slice(nl + 1);
  let trailer: unknown;
  try {
    trailer = JSON.parse(rest);
  } catch {
    throw corrupt(file, 'its checksum line is missing or unreadable (cut short?)');
  }
  const want = (trailer as { sha256?: unknown } | null)?.sha256;
  if (typeof want !== 'string') throw corrupt(file, 'its checksum line holds no sha256');
  if (sha256(line) !== want) throw corrupt(file, 'its content does not match its sha256 checksum');
  let body: Partial<BundleBody>;
  try {
    body = JSON.parse(line) as Partial<BundleBody>;
  } catch {
    throw corrupt(file, 'its body is not JSON');
  }
  if (body?.format !== BUNDLE_FORMAT)
    throw corrupt(file, `it is not a baton session bundle (format ${JSON.stringify(body?.format)})`);
  if (typeof body.v !== 'number' || body.v > BUNDLE_VERSION) {
    throw new BatonError(
      'UNSUPPORTED_VERSION',
      `The bundle ${file} has format version ${String(body.v)}, written by baton ${String(body.baton)}; this baton reads up to ${BUNDLE_VERSION}.`,
      {
        hint: 'Upgrade baton on this machine (npm install -g baton-sessions@latest), then import again.',
        details: { file, v: body.v, baton: body.baton ?? null },
      },
    );
  }
  if (
    typeof body.sessionId !== 'string' ||
    !Array.isArray(body.events) ||
    !Array.isArray(body.checkpoints) ||
    !Array.isArray(body.relative) ||
    typeof body.stepResults !== 'object' ||
    body.stepResults === null
  ) {
    throw corrupt(file, 'its body lacks the session id, events, checkpoints, step results or path list');
  }
  return body as BundleBody;
}

/** True when `p` is `root` or inside it. */
function under(p: string, root: string): boolean {
  return p === root || p.startsWith(root.endsWith(path.sep) ? root : root + path.sep);
}

/**
 * Replaces, in place, every string inside `value` that is `root` or a path under it by the
 * path relative to `root` (`/` separated; `.` for the root), and returns where (prefixed by
 * `at`). Object keys are left alone.
 */
export function relativize(value: unknown, root: string, at: BundlePointer = []): BundlePointer[] {
  const found: BundlePointer[] = [];
  const walk = (v: unknown, where: BundlePointer, set: (x: string) => void): void => {
    if (typeof v === 'string') {
      if (path.isAbsolute(v) && under(v, root)) {
        set(path.relative(root, v).split(path.sep).join('/') || '.');
        found.push(where);
      }
      return;
    }
    if (Array.isArray(v)) v.forEach((x, i) => walk(x, [...where, i], (s) => (v[i] = s)));
    else if (v && typeof v === 'object') {
      const o = v as Record<string, unknown>;
      for (const k of Object.keys(o)) walk(o[k], [...where, k], (s) => (o[k] = s));
    }
  };
  walk(value, at, () => undefined);
  return found;
}

/** Puts the receiver's `root` back in front of every path `relative` names (in place); a pointer that names no string is `CORRUPT`. */
export function reroot(body: BundleBody, root: string, file: string): void {
  for (const p of body.relative) {
    let parent: unknown = body;
    for (const k of p.slice(0, -1))
      parent = parent && typeof parent === 'object' ? (parent as Record<string | number, unknown>)[k] : undefined;
    const last = p[p.length - 1];
    const holder = parent as Record<string | number, unknown> | null;
    if (last === undefined || !holder || typeof holder !== 'object' || typeof holder[last] !== 'string')
      throw corrupt(file, `its path list names ${JSON.stringify(p)}, which holds no path`);
    const rel = holder[last] as string;
    holder[last] = rel === '.' ? root : path.join(root, ...rel.split('/'));
  }
}
