import path from 'node:path';
import { findStoreDir } from '../store/file/paths.js';
import { isPostgresUrl } from '../store/postgres/url.js';

/**
 * Where the store a surface would open lives, without opening it: the URL when one is
 * named, else the `.baton` folder (`dir`, else found by walking up from `cwd`), else null.
 * For reporting on a store that cannot be opened (a hook's log of why).
 */
export function locateStore(o: { url: string | null; dir: string | null; cwd: string }): string | null {
  if (o.url && (isPostgresUrl(o.url) || o.url === 'memory:')) return o.url;
  const explicit = o.url ? o.url.replace(/^file:(\/\/)?/, '') : o.dir;
  try {
    return findStoreDir(o.cwd, explicit) ?? (explicit ? path.resolve(o.cwd, explicit) : null);
  } catch {
    return null;
  }
}
