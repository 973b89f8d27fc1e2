/**
 * Finds the CCW sessions of a workflow folder across every layout generation: the registry
 * (`session_status.jsonl`), `.active-*` markers and session folders, merged by name into
 * candidates. Unsafe links and registry paths are reported and not followed.
 */
import type { ReadResult, SafeDir } from '../safe-dir.js';
import type { FormatProblem } from '../types.js';
import { problem, str } from '../util.js';
import { type FoundFolder, MARKER_PREFIX, REGISTRY_FILE } from './layout.js';
import { parseRegistry, type Registry, type RegistryEntry } from './registry.js';

/** Registry `directory` → path relative to the inspected root (lexically; checked by the caller). */
function registryDirToRel(directory: string, prefix: string): string {
  const d = directory.replace(/\\/g, '/').replace(/\/+$/, '');
  if (prefix === '') return d.startsWith('.workflow/') ? d.slice('.workflow/'.length) : d;
  return d;
}

/** One session name with everything found for it (folders, registry line, marker). */
export interface Candidate {
  name: string;
  folders: FoundFolder[];
  entry: RegistryEntry | null;
  marker: string | null;
  /** The registry's directory for it was unsafe (reported, not followed). */
  unsafe: boolean;
}

/** What {@link findCandidates} found. */
export interface Candidates {
  byName: Map<string, Candidate>;
  registry: Registry | null;
  registryRead: ReadResult | null;
  regPath: string;
}

/** Merges registry lines, markers and session folders into candidates by name; problems go to `P`. */
export async function findCandidates(
  dir: SafeDir,
  prefix: string,
  wfDir: string,
  folders: FoundFolder[],
  P: FormatProblem[],
): Promise<Candidates> {
  // Registry (layout a).
  let registry: Registry | null = null;
  let registryRead: ReadResult | null = null;
  const regPath = `${prefix}${REGISTRY_FILE}`;
  const rr = await dir.read(regPath);
  if (rr.kind === 'ok') {
    registryRead = rr;
    registry = parseRegistry(rr.text, regPath);
    P.push(...registry.problems);
  } else if (rr.kind !== 'missing') {
    P.push(rr.problem);
  }

  // Markers (layout b).
  const markers = await readMarkers(dir, wfDir, P);

  // Session folders, links checked; unsafe ones reported and not followed.
  const byName = new Map<string, Candidate>();
  const cand = (name: string): Candidate => {
    let c = byName.get(name);
    if (!c) byName.set(name, (c = { name, folders: [], entry: null, marker: null, unsafe: false }));
    return c;
  };
  for (const f of folders) {
    if (f.link) {
      const c = await dir.check(f.rel);
      if (!c.ok) {
        P.push({ ...c.problem, sessionId: f.name });
        continue;
      }
    }
    cand(f.name).folders.push(f);
  }

  if (registry) {
    for (const entry of registry.entries.values())
      await placeRegistryEntry(dir, entry, cand(entry.id), prefix, regPath, P);
  }
  for (const [name, path] of markers) {
    const c = byName.get(name);
    if (c && c.folders.length > 0) c.marker = path;
    else {
      P.push(
        problem(
          'DANGLING_ACTIVE',
          'error',
          `The marker ${path} makes ${name} the active session, but no folder ${name} exists.`,
          { path, sessionId: name, hint: `Remove ${path}, or restore the session folder.` },
        ),
      );
    }
  }
  return { byName, registry, registryRead, regPath };
}

/** The `.active-<name>` markers of the workflow folder by session name; unsafe links reported and skipped. */
async function readMarkers(dir: SafeDir, wfDir: string, P: FormatProblem[]): Promise<Map<string, string>> {
  const markers = new Map<string, string>();
  for (const e of await dir.list(wfDir)) {
    if (!e.name.startsWith(MARKER_PREFIX) || e.name === MARKER_PREFIX) continue;
    if (e.kind === 'link') {
      const c = await dir.check(e.path);
      if (!c.ok) {
        P.push(c.problem);
        continue;
      }
    } else if (e.kind !== 'file') continue;
    markers.set(e.name.slice(MARKER_PREFIX.length), e.path);
  }
  return markers;
}

/**
 * Ties a registry line to its candidate: the folder it names when no other was found, or a
 * mismatch warning when the folder found lives elsewhere. Unsafe directories are reported, not followed.
 */
async function placeRegistryEntry(
  dir: SafeDir,
  entry: RegistryEntry,
  c: Candidate,
  prefix: string,
  regPath: string,
  P: FormatProblem[],
): Promise<void> {
  const directory = str(entry.raw.directory);
  c.entry = entry;
  if (directory === null) {
    P.push(
      problem(
        'MISSING_FIELD',
        'info',
        `Registry line ${entry.line} (${entry.id}) has no "directory"; ${prefix}${entry.id} was assumed.`,
        {
          path: regPath,
          sessionId: entry.id,
          details: { field: 'directory', assumed: `${prefix}${entry.id}`, line: entry.line },
        },
      ),
    );
    return;
  }
  let rel = registryDirToRel(directory, prefix);
  // A directory written relative to .workflow (`WFS-x`) rather than to the project root.
  if (
    prefix !== '' &&
    !rel.startsWith('.workflow/') &&
    !(await dir.exists(rel)) &&
    (await dir.exists(`${prefix}${rel}`))
  )
    rel = `${prefix}${rel}`;
  const chk = await dir.check(rel);
  if (!chk.ok) {
    c.unsafe = true;
    P.push({
      ...chk.problem,
      sessionId: entry.id,
      path: regPath,
      message: `Registry line ${entry.line} (${entry.id}) points to ${JSON.stringify(directory)}: ${chk.problem.message}`,
      details: { line: entry.line, directory },
    });
    return;
  }
  if (c.folders.some((f) => f.rel === chk.rel)) return;
  const elsewhere = c.folders.length > 0;
  if (!elsewhere && (await dir.exists(chk.rel))) {
    c.folders.push({ name: chk.rel.split('/').pop() ?? entry.id, rel: chk.rel, place: 'flat', link: false });
    return;
  }
  if (elsewhere) {
    P.push(
      problem(
        'REGISTRY_MISMATCH',
        'warning',
        `Registry line ${entry.line} says ${entry.id} lives in ${directory}, but it is in ${c.folders.map((f) => f.rel).join(', ')}; the folder found wins.`,
        {
          path: regPath,
          sessionId: entry.id,
          hint: 'The registry predates the move to active/ and archives/: remove it once every session is migrated.',
          details: {
            line: entry.line,
            field: 'directory',
            registry: directory,
            found: c.folders.map((f) => f.rel),
          },
        },
      ),
    );
  }
}
