/**
 * The files a Codex `apply_patch` call touches, read from its patch text (the
 * `*** Begin Patch` envelope): added and updated files are written, a moved file is written
 * at its new path and deleted at its old one, deleted files are deleted. Only the header
 * lines are looked at; the hunks are not applied or checked.
 */
export function patchFiles(patch: string): { written: string[]; deleted: string[]; created: string[] } {
  const written = new Set<string>();
  const created = new Set<string>();
  const deleted = new Set<string>();
  let current: string | null = null;
  for (const raw of patch.split('\n')) {
    const line = raw.replace(/\r$/, '');
    const m = /^\*\*\* (Add File|Update File|Delete File|Move to): (.+)$/.exec(line);
    if (!m) continue;
    const file = m[2]!.trim();
    if (m[1] === 'Delete File') {
      deleted.add(file);
      written.delete(file);
      current = null;
    } else if (m[1] === 'Move to') {
      if (current !== null) {
        written.delete(current);
        deleted.add(current);
      }
      written.add(file);
      created.add(file);
      current = file;
    } else {
      written.add(file);
      if (m[1] === 'Add File') created.add(file);
      current = file;
    }
  }
  return { written: [...written], deleted: [...deleted], created: [...created].filter((f) => written.has(f)) };
}

/** The patch text of an `apply_patch` input, wherever this Codex version puts it; null if none. */
export function findPatch(input: unknown): string | null {
  if (typeof input === 'string') return input.includes('*** Begin Patch') ? input : null;
  if (Array.isArray(input)) {
    for (const x of input) {
      const p = findPatch(x);
      if (p) return p;
    }
    return null;
  }
  if (input !== null && typeof input === 'object') {
    for (const v of Object.values(input as Record<string, unknown>)) {
      if (typeof v === 'string' || Array.isArray(v)) {
        const p = findPatch(v);
        if (p) return p;
      }
    }
  }
  return null;
}
