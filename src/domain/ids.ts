import { BatonError } from './errors.js';
import { hint } from './hints.js';

/** Longest accepted session, phase or checkpoint id. Bounded so ids stay usable as file names. */
export const MAX_ID_LENGTH = 128;

const ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

/** The id schemes `baton start --id-format` accepts. */
export const ID_FORMATS = ['date', 'uuid', 'bmad', 'wfs'] as const;
export type IdFormat = (typeof ID_FORMATS)[number];

/** BMAD id prefixes named by the BMAD session manager; SES is its default. */
export const BMAD_PREFIXES = ['SES', 'ENG', 'ANA', 'DES', 'TST'] as const;

/**
 * Checks an id used as a file or directory name: `[A-Za-z0-9][A-Za-z0-9._-]*`, at most
 * {@link MAX_ID_LENGTH} characters, no `..`. Returns the id or throws `BAD_INPUT`.
 */
export function validateId(id: unknown, what = 'session id'): string {
  if (typeof id !== 'string') {
    throw new BatonError('BAD_INPUT', `The ${what} must be text; got ${typeof id}.`, {
      hint: `Give a ${what} made of letters, digits, '.', '_' and '-'.`,
    });
  }
  if (id.length === 0) {
    throw new BatonError('BAD_INPUT', `The ${what} is empty.`, {
      hint: `Give a ${what} made of letters, digits, '.', '_' and '-'.`,
    });
  }
  if (id.length > MAX_ID_LENGTH) {
    throw new BatonError(
      'BAD_INPUT',
      `The ${what} is ${id.length} characters long; at most ${MAX_ID_LENGTH} are allowed.`,
      {
        hint: `Use a shorter ${what}.`,
        details: { length: id.length },
      },
    );
  }
  if (!ID_PATTERN.test(id) || id.includes('..')) {
    throw new BatonError('BAD_INPUT', `The ${what} ${JSON.stringify(clip(id))} is not valid.`, {
      hint: `A ${what} starts with a letter or digit and holds only letters, digits, '.', '_' and '-' (no '..', no '/').`,
    });
  }
  return id;
}

/** Lower-case ASCII slug of a title, at most `max` characters, never empty. */
export function slugify(title: string, max = 60): string {
  const slug = title
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, max)
    .replace(/-+$/g, '');
  return slug || 'session';
}

/** What id generation needs from the outside world. */
export interface IdContext {
  now: Date;
  /** Returns `n` random bytes. */
  randomBytes: (n: number) => Uint8Array;
}

/** Options for BMAD ids: `<PREFIX><YYYYMM>-<CLIENT>-<PROJECT>`. */
export interface BmadIdOptions {
  prefix?: string;
  client?: string;
  project?: string;
}

/**
 * Makes a new session id in the given scheme. The result always passes {@link validateId}.
 * - `date`: `YYYY-MM-DD-<slug>` (Maestro)
 * - `uuid`: `session-<8 hex>` (Go Team)
 * - `bmad`: `<PREFIX><YYYYMM>-<CLIENT>-<PROJECT>` (BMAD)
 * - `wfs`: `WFS-<slug>` (Claude-Code-Workflow)
 */
export function generateId(format: IdFormat, title: string, ctx: IdContext, bmad: BmadIdOptions = {}): string {
  const iso = ctx.now.toISOString();
  switch (format) {
    case 'date':
      return validateId(`${iso.slice(0, 10)}-${slugify(title)}`);
    case 'uuid': {
      const hex = Array.from(ctx.randomBytes(4), (b) => b.toString(16).padStart(2, '0')).join('');
      return validateId(`session-${hex}`);
    }
    case 'wfs':
      return validateId(`WFS-${slugify(title)}`);
    case 'bmad': {
      const prefix = (bmad.prefix ?? 'SES').toUpperCase();
      if (!(BMAD_PREFIXES as readonly string[]).includes(prefix)) {
        throw new BatonError(
          'BAD_INPUT',
          `BMAD prefix ${JSON.stringify(prefix)} is not one of ${BMAD_PREFIXES.join(', ')}.`,
          {
            hint: hint('session.bmad-prefix', { prefixes: [...BMAD_PREFIXES] }),
          },
        );
      }
      const part = (v: string | undefined, fallback: string): string =>
        slugify(v ?? fallback, 24)
          .toUpperCase()
          .replace(/-/g, '');
      const yyyymm = iso.slice(0, 4) + iso.slice(5, 7);
      return validateId(`${prefix}${yyyymm}-${part(bmad.client, 'CLIENT')}-${part(bmad.project, title)}`);
    }
  }
}

/** Parses an `--id-format` value. */
export function parseIdFormat(value: string): IdFormat {
  if ((ID_FORMATS as readonly string[]).includes(value)) return value as IdFormat;
  throw new BatonError('BAD_INPUT', `Unknown id format ${JSON.stringify(clip(value))}.`, {
    hint: `Use one of: ${ID_FORMATS.join(', ')}.`,
  });
}

/** Shortens a user-given string for inclusion in a message. */
export function clip(s: string, max = 60): string {
  return s.length > max ? `${s.slice(0, max)}…` : s;
}

/** A phase id made from its name (`phase-<index+1>` when the name gives none): plan files, `--phases`, `plan add`. */
export function phaseIdFor(name: string, index: number): string {
  const slug = name
    .toLowerCase()
    .replace(/[^a-z0-9._-]+/g, '-')
    .replace(/^[^a-z0-9]+|-+$/g, '')
    .slice(0, 64);
  return slug && validIdLike(slug) ? slug : `phase-${index + 1}`;
}

function validIdLike(s: string): boolean {
  return /^[a-z0-9][a-z0-9._-]*$/.test(s) && !s.includes('..');
}
