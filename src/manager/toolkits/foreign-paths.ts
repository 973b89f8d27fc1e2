/**
 * Where the files of an imported session are in this workspace. A toolkit may keep a file's
 * path relative to a folder of its own (bmit: `agent-output/{project}/`; CCW: the session
 * folder), recorded at import in the provenance (`fileBases`, relative to the folder
 * imported). The resume plan measures, reports and suggests commands on the resolved paths,
 * never on the path as the toolkit wrote it joined to the workspace root.
 */
import path from 'node:path';
import type { SessionState } from '../../domain/state.js';
import { provenanceOf } from '../../formats/provenance.js';

/**
 * The path of `recorded` in the workspace at `wsRoot`: relative to it ('/'-separated) when the
 * file is inside it, else absolute; `recorded` itself when the toolkit keeps it relative to
 * the project (no base recorded), or when it exists as written and not at the resolved place.
 */
function resolveOne(
  recorded: string,
  base: string | undefined,
  root: string,
  wsRoot: string,
  exists: (p: string) => boolean,
): string {
  if (base === undefined || path.isAbsolute(recorded)) return recorded;
  const abs = path.resolve(root, base, recorded);
  const rel = path.relative(wsRoot, abs);
  const inside = rel !== '' && !rel.startsWith('..') && !path.isAbsolute(rel);
  const resolved = inside ? rel.split(path.sep).join('/') : abs;
  // A path the toolkit wrote from the project after all: it is where it says.
  if (!exists(abs) && exists(path.resolve(wsRoot, recorded))) return recorded;
  return resolved;
}

/**
 * `s` with the file paths of its phases resolved into the workspace (see the file header);
 * `s` itself when it was not imported or records no base.
 */
export function withResolvedPaths(s: SessionState, wsRoot: string, exists: (p: string) => boolean): SessionState {
  const prov = provenanceOf(s);
  const bases = prov?.fileBases;
  if (!prov || !bases || typeof bases !== 'object' || typeof prov.root !== 'string') return s;
  const root = prov.root;
  let changed = false;
  const phases = s.phases.map((p) => {
    if (!p.files.some((f) => Object.hasOwn(bases, f.path))) return p;
    changed = true;
    return {
      ...p,
      files: p.files.map((f) =>
        Object.hasOwn(bases, f.path) ? { ...f, path: resolveOne(f.path, bases[f.path], root, wsRoot, exists) } : f,
      ),
    };
  });
  return changed ? { ...s, phases } : s;
}
