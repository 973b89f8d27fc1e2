/**
 * Sessions that travel (`manager.bundles`, `baton export --bundle` / `baton import FILE`):
 * one session written as one checksummed file (bundle-file.ts) and restored, verified, into
 * another store on another machine. The journal goes as stored, so the receiver's fold gives
 * the same state; paths under the repository root go relative and come back under the
 * receiver's root.
 */
import fs from 'node:fs';
import path from 'node:path';
import { hint } from '../../domain/hints.js';
import { BatonError, isBatonError } from '../../domain/errors.js';
import type { NewEvent, StoredEvent } from '../../domain/events.js';
import { validateId } from '../../domain/ids.js';
import { stepName } from '../../domain/durable-steps.js';
import { nodeCrypto } from '../lazy.js';
import type { SessionState } from '../../domain/state.js';
import { checkpointFromRecord, checkpointRecord } from '../../store/checkpoint-record.js';
import type { CheckpointRecord } from '../../store/checkpoint-record.js';
import { stepResultsOf } from '../../store/capabilities.js';
import { atomicWrite } from '../../store/atomic-write.js';
import { BUNDLE_FORMAT, BUNDLE_VERSION, decodeBundle, encodeBundle, relativize, reroot } from './bundle-file.js';
import type { BundleBody } from './bundle-file.js';
import type { ChangeOptions, ManagerCore } from '../types.js';

/** What bundles need of the manager (a narrow view: manager.ts holds a {@link Bundles}). */
export interface BundleManager extends ManagerCore {
  readonly recovery: { handoff(id: string): Promise<{ markdown: string }> };
  delete(id: string, o?: ChangeOptions): Promise<unknown>;
  switchTo(ref: string, agent?: string | null): Promise<SessionState>;
}

declare const BATON_VERSION: string | undefined;

/** Fields a store adds to an event for its own bookkeeping (not handed back to `create`). */
const STORE_FIELDS: ReadonlySet<string> = new Set(['seq', 'v', 'batch', 'crc']);

/** Options of {@link Bundles.export} and {@link Bundles.import}. */
export interface BundleOptions {
  /** Folder relative file names are resolved against. */
  cwd: string;
  /**
   * The repository root paths are made relative to (export) or re-rooted under (import).
   * Default: the top of the git work tree holding the workspace, else the workspace folder,
   * else `cwd`.
   */
  root?: string;
  now?: () => Date;
}

/** Result of {@link Bundles.export}. */
export interface BundleExportResult {
  id: string;
  /** Absolute path of the bundle written. */
  file: string;
  bytes: number;
  /** The bundle's checksum (of its body line). */
  sha256: string;
  events: number;
  checkpoints: number;
  /** Checkpoints left out because they are damaged in the store. */
  skippedCheckpoints: string[];
  stepResults: number;
  /** Steps (`key` or `phase/key`) whose large result is missing or damaged in the store, left out. */
  skippedStepResults: string[];
  /** Paths made relative to the repository root. */
  relativePaths: number;
  git: { branch: string | null; head: string | null } | null;
}

/** Result of {@link Bundles.import}. */
export interface BundleImportResult {
  /** The id the session has here. */
  id: string;
  /** Its id in the bundle. */
  bundledId: string;
  file: string;
  revision: number;
  events: number;
  checkpoints: number;
  stepResults: number;
  /** The receiver's root the relative paths were put under. */
  root: string;
  relativePaths: number;
  /** An existing session of that id was deleted first (`replace`). */
  replaced: boolean;
  /** It became the active session (`switch`). */
  active: boolean;
  /** The sender's git branch and HEAD, to fetch before resuming. */
  git: { branch: string | null; head: string | null } | null;
  /** What the receiver does next (fetch the branch, resume), as commands. */
  next: string[];
}

/** The repository root of this side: given, else the git top of the workspace, else the workspace, else `cwd`. */
function rootOf(m: BundleManager, o: BundleOptions): string {
  if (o.root !== undefined) return path.resolve(o.cwd, o.root);
  const ws = m.workspace;
  if (!ws) return path.resolve(o.cwd);
  return ws.git.changes()?.top ?? ws.root;
}

function realOr(p: string): string {
  try {
    return fs.realpathSync(p);
  } catch {
    return p;
  }
}

/** What the receiver runs: fetch the branch (when the sender had one), import, resume. */
function nextSteps(id: string, git: BundleBody['source']['git'], file: string): string[] {
  const steps: string[] = [];
  if (git?.branch)
    steps.push(
      `git fetch origin ${git.branch} && git switch ${git.branch}${git.head ? `   # the sender was at ${git.head.slice(0, 12)}` : ''}`,
    );
  else if (git?.head) steps.push(`git fetch origin && git switch --detach ${git.head}`);
  steps.push(`baton import ${file}   # add --as NEW_ID if ${id} is taken here`);
  steps.push(`baton resume ${id} --apply   # without --apply: only shows the plan`);
  return steps;
}

function receiving(
  id: string,
  title: string,
  git: BundleBody['source']['git'],
  rootName: string,
  file: string,
): string {
  const where = git
    ? ` on branch \`${git.branch ?? '(detached)'}\`${git.head ? ` at \`${git.head.slice(0, 12)}\`` : ''}`
    : '';
  return [
    '## Receiving this session',
    '',
    `Session \`${id}\` (${title}) was exported from the repository \`${rootName}\`${where}. Paths are relative to the repository root and are put under yours on import.`,
    '',
    'In a clone of the same repository:',
    '',
    ...nextSteps(id, git, path.basename(file)).map((s, i) => `${i + 1}. \`${s}\``),
    '',
  ].join('\n');
}

/** The session's journal as handed to `create`: its events without seq and store bookkeeping. */
function toNew(e: StoredEvent): NewEvent {
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(e)) if (!STORE_FIELDS.has(k)) out[k] = (e as Record<string, unknown>)[k];
  return out as unknown as NewEvent;
}

/**
 * Writes session `id` (journal, valid checkpoints with their git state, large step results,
 * handoff) to `file` as one bundle, atomically. Paths under the repository root are made
 * relative to it; the bundle names the sender's git branch and HEAD. A damaged checkpoint is
 * left out and named in the result.
 */
export async function exportBundle(
  m: BundleManager,
  id: string,
  file: string,
  o: BundleOptions,
): Promise<BundleExportResult> {
  const state = await m.get(id);
  const abs = path.resolve(o.cwd, file);
  if (fs.existsSync(abs) && fs.statSync(abs).isDirectory())
    throw new BatonError('BAD_INPUT', `--bundle ${abs} is a folder; a bundle is one file.`, {
      hint: 'Give the bundle a file name, e.g. session.baton.json.',
    });
  const root = rootOf(m, o);
  const events = structuredClone(await m.log(id)) as StoredEvent[];
  const reads = await m.store.listCheckpoints(id);
  const checkpoints: CheckpointRecord[] = [];
  const skipped: string[] = [];
  for (const r of reads) {
    if (r.valid) checkpoints.push(structuredClone(checkpointRecord(r.checkpoint)));
    else skipped.push(r.id);
  }
  const stepResults: Record<string, string> = {};
  const missingSteps: string[] = [];
  const table = stepResultsOf(m.store);
  for (const step of state.durableSteps ?? []) {
    if (!step.resultRef || !table) continue;
    const text = await table.get(id, step.resultRef.sha256);
    // A result missing or damaged here is left out (the receiver's run of the step says CORRUPT, as here).
    if (text !== null && nodeCrypto().createHash('sha256').update(text).digest('hex') === step.resultRef.sha256)
      stepResults[step.resultRef.sha256] = text;
    else missingSteps.push(stepName(step.key, step.phaseId));
  }
  const relative = [];
  for (const r of [...new Set([root, realOr(root)])])
    relative.push(...relativize(events, r, ['events']), ...relativize(checkpoints, r, ['checkpoints']));
  const git = m.workspace?.gitInfo() ?? null;
  const source = {
    rootName: path.basename(root),
    git: git ? { branch: git.branch, head: git.head } : null,
    archived: state.archived,
  };
  let briefing = (await m.recovery.handoff(id)).markdown.trimEnd();
  // The briefing is text for a person: paths under the root read relative to it, as the rest.
  for (const r of [...new Set([root, realOr(root)])]) briefing = briefing.split(`${r}${path.sep}`).join('');
  const handoff = `${briefing}\n\n${receiving(id, state.title, source.git, source.rootName, abs)}`;
  const body: BundleBody = {
    format: BUNDLE_FORMAT,
    v: BUNDLE_VERSION,
    baton: typeof BATON_VERSION === 'string' ? BATON_VERSION : '0.0.0-dev',
    sessionId: id,
    title: state.title,
    createdAt: (o.now ?? (() => new Date()))().toISOString(),
    source,
    events,
    checkpoints,
    stepResults,
    relative,
    handoff,
  };
  const { text, sha256 } = encodeBundle(body);
  fs.mkdirSync(path.dirname(abs), { recursive: true });
  atomicWrite(abs, text);
  return {
    id,
    file: abs,
    bytes: Buffer.byteLength(text),
    sha256,
    events: events.length,
    checkpoints: checkpoints.length,
    skippedCheckpoints: skipped,
    stepResults: Object.keys(stepResults).length,
    skippedStepResults: missingSteps,
    relativePaths: relative.length,
    git: source.git,
  };
}

/** Options of {@link importBundle}. */
export interface BundleImportOptions extends BundleOptions {
  /** The id to give the session here (default: its id in the bundle). */
  as?: string;
  /** Delete an existing session of that id first (it must be deletable: not running, not pinned). */
  replace?: boolean;
  /** Make it the active session (pausing the active one). */
  switch?: boolean;
  agent?: string | null;
}

function readBundleText(file: string): string {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT')
      throw new BatonError('NOT_FOUND', `There is no bundle at ${file}.`, {
        hint: 'Check the path of the bundle file the sender exported.',
      });
    throw new BatonError('BAD_INPUT', `The bundle ${file} cannot be read: ${(e as Error).message}`, {
      hint: 'Check the file and its permissions.',
    });
  }
}

/** The checkpoints of the bundle, checked and moved to session `id`; `CORRUPT` when one does not check out. */
function checkpointsOf(body: BundleBody, id: string, file: string): ReturnType<typeof checkpointFromRecord>[] {
  return body.checkpoints.map((r) => {
    const cp = checkpointFromRecord(r, body.sessionId, String(r.id));
    if (typeof cp === 'string')
      throw new BatonError(
        'CORRUPT',
        `The bundle ${file} holds checkpoint ${String(r.id)}, which ${cp}. Nothing was imported.`,
        { hint: 'Ask the sender to export the session again.' },
      );
    return { ...cp, sessionId: id, state: { ...cp.state, id } as SessionState };
  });
}

/**
 * Restores the session of bundle `file`, verified first (checksum, format version: `CORRUPT`,
 * `UNSUPPORTED_VERSION`, nothing created): its journal with the events' own times and
 * actors, its checkpoints and large step results, paths re-rooted under this side's root.
 * `EXISTS` when a session of that id exists, unless `as` gives another id or `replace`
 * deletes the existing one. It becomes the active session only with `switch`.
 */
export async function importBundle(
  m: BundleManager,
  file: string,
  o: BundleImportOptions,
): Promise<BundleImportResult> {
  const abs = path.resolve(o.cwd, file);
  const body = decodeBundle(readBundleText(abs), abs);
  const id = validateId(o.as ?? body.sessionId, o.as !== undefined ? '--as' : 'session id');
  const root = rootOf(m, o);
  reroot(body, root, abs);
  const checkpoints = checkpointsOf(body, id, abs);
  const events = body.events.map(toNew);
  const table = stepResultsOf(m.store);
  if (!table && Object.keys(body.stepResults).length)
    throw new BatonError(
      'BAD_INPUT',
      `The bundle ${abs} holds ${Object.keys(body.stepResults).length} large step result(s), which this store does not keep (capability "step results"). Nothing was imported.`,
      { hint: hint('bundle.store-keeps-steps'), details: { file: abs } },
    );
  let replaced = false;
  if (await m.store.exists(id)) {
    if (o.replace !== true) {
      throw new BatonError('EXISTS', `A session ${id} exists here already; the bundle's session was not imported.`, {
        hint: hint('bundle.import-as', { file }),
        details: { sessionId: id, file: abs },
      });
    }
    try {
      await m.delete(id, { agent: o.agent ?? null });
    } catch (e) {
      // Refused before anything changed: say so in the words of the import that asked.
      if (!isBatonError(e)) throw e;
      throw new BatonError(
        e.code,
        `The session ${id} here cannot be replaced: ${e.message} Nothing was imported and it is as it was (or import the bundle beside it with --as NEW_ID).`,
        { ...(e.way ? { hint: e.way } : {}), details: { ...e.details, sessionId: id, file: abs } },
      );
    }
    replaced = true;
  }
  let state = await m.createFrom(id, events);
  if (table) for (const [sha, text] of Object.entries(body.stepResults)) await table.put(id, sha, text);
  for (const cp of checkpoints) await m.store.saveCheckpoint(id, cp as Exclude<typeof cp, string>);
  if (body.source.archived && state.archived) await m.store.archive(id);
  let active = false;
  if (o.switch === true) {
    state = await m.switchTo(id, o.agent ?? null);
    active = true;
  }
  const next = nextSteps(id, body.source.git, path.basename(abs)).filter((s) => !s.startsWith('baton import'));
  return {
    id,
    bundledId: body.sessionId,
    file: abs,
    revision: state.revision,
    events: events.length,
    checkpoints: checkpoints.length,
    stepResults: Object.keys(body.stepResults).length,
    root,
    relativePaths: body.relative.length,
    replaced,
    active,
    git: body.source.git,
    next,
  };
}

/** The handoff Markdown inside bundle `file`, verified as {@link importBundle} does, without importing anything. */
export function bundleHandoff(file: string, cwd: string): string {
  const abs = path.resolve(cwd, file);
  return decodeBundle(readBundleText(abs), abs).handoff;
}

/** Sessions that travel (`manager.bundles`): see {@link exportBundle} and {@link importBundle}. */
export class Bundles {
  constructor(private readonly m: BundleManager) {}

  /** Writes session `id` to `file` as one bundle ({@link exportBundle}). */
  export(id: string, file: string, o: BundleOptions): Promise<BundleExportResult> {
    return exportBundle(this.m, id, file, o);
  }

  /** Restores the session of bundle `file`, verified ({@link importBundle}). */
  import(file: string, o: BundleImportOptions): Promise<BundleImportResult> {
    return importBundle(this.m, file, o);
  }

  /** True when `p` (resolved against `cwd`) is a file, which `baton import` takes for a bundle (a folder is a toolkit's). */
  static isBundlePath(p: string, cwd: string): boolean {
    try {
      return fs.statSync(path.resolve(cwd, p)).isFile();
    } catch {
      return false;
    }
  }
}
