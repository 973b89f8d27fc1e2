import type { ZodTypeAny } from 'zod';
import { isPlainObject } from './envelope.js';

/**
 * A check compiled from a zod schema: true only for a value the schema accepts and parses to
 * a value equal to it (no key dropped, nothing transformed), so the value can be used as the
 * parse result. False says nothing: parse with the schema itself, for its verdict, its data
 * and its message.
 */
export type FastCheck = (value: unknown) => boolean;

/** Property the compiled check is kept under on its schema (schemas are built once, at start-up). */
const CACHE = Symbol('baton.fastCheck');

interface Def {
  typeName?: string;
  checks?: Array<{ kind: string; value?: number; inclusive?: boolean }>;
  innerType?: ZodTypeAny;
  type?: ZodTypeAny;
  minLength?: { value: number } | null;
  maxLength?: { value: number } | null;
  exactLength?: { value: number } | null;
  shape?: () => Record<string, ZodTypeAny>;
  unknownKeys?: 'strip' | 'strict' | 'passthrough';
  catchall?: ZodTypeAny;
  values?: readonly string[];
}

/**
 * Compiles `schema` (zod 3: the object, string, number, boolean, enum, array, optional and
 * nullable schemas with the checks the tool schemas use) into a {@link FastCheck}, or null when
 * it uses anything else (a refinement, a transform, a default, a union …): then only zod decides.
 * A zod tool schema parses a small argument object in ≈ 20 µs; the compiled check in ≈ 1 µs.
 */
export function compileCheck(schema: ZodTypeAny): FastCheck | null {
  const cached = (schema as unknown as { [CACHE]?: FastCheck | null })[CACHE];
  if (cached !== undefined) return cached;
  const check = compile(schema);
  Object.defineProperty(schema, CACHE, { value: check });
  return check;
}

function compile(schema: ZodTypeAny): FastCheck | null {
  const def = schema._def as Def;
  switch (def.typeName) {
    case 'ZodString':
      return stringCheck(def);
    case 'ZodNumber':
      return numberCheck(def);
    case 'ZodBoolean':
      return (v) => typeof v === 'boolean';
    case 'ZodEnum': {
      const values = new Set(def.values ?? []);
      return (v) => typeof v === 'string' && values.has(v);
    }
    case 'ZodOptional': {
      const inner = def.innerType && compileCheck(def.innerType);
      return inner ? (v) => v === undefined || inner(v) : null;
    }
    case 'ZodNullable': {
      const inner = def.innerType && compileCheck(def.innerType);
      return inner ? (v) => v === null || inner(v) : null;
    }
    case 'ZodArray':
      return arrayCheck(def);
    case 'ZodObject':
      return objectCheck(def);
    default:
      return null;
  }
}

function stringCheck(def: Def): FastCheck | null {
  let min = 0;
  let max = Infinity;
  for (const c of def.checks ?? []) {
    if (c.kind === 'min') min = Math.max(min, c.value!);
    else if (c.kind === 'max') max = Math.min(max, c.value!);
    else if (c.kind === 'length') {
      min = Math.max(min, c.value!);
      max = Math.min(max, c.value!);
    } else return null;
  }
  return (v) => typeof v === 'string' && v.length >= min && v.length <= max;
}

function numberCheck(def: Def): FastCheck | null {
  const tests: Array<(n: number) => boolean> = [];
  for (const c of def.checks ?? []) {
    const bound = c.value!;
    if (c.kind === 'int') tests.push(Number.isInteger);
    else if (c.kind === 'finite') tests.push(Number.isFinite);
    else if (c.kind === 'min') tests.push(c.inclusive ? (n) => n >= bound : (n) => n > bound);
    else if (c.kind === 'max') tests.push(c.inclusive ? (n) => n <= bound : (n) => n < bound);
    else return null;
  }
  return (v) => typeof v === 'number' && !Number.isNaN(v) && tests.every((t) => t(v));
}

function arrayCheck(def: Def): FastCheck | null {
  const item = def.type && compileCheck(def.type);
  if (!item) return null;
  const min = Math.max(def.minLength?.value ?? 0, def.exactLength?.value ?? 0);
  const max = Math.min(def.maxLength?.value ?? Infinity, def.exactLength?.value ?? Infinity);
  return (v) => Array.isArray(v) && v.length >= min && v.length <= max && v.every(item);
}

function objectCheck(def: Def): FastCheck | null {
  // A catch-all schema for unknown keys is not compiled.
  if (def.catchall && (def.catchall._def as Def).typeName !== 'ZodNever') return null;
  const shape = def.shape?.();
  if (!shape) return null;
  const fields = new Map<string, FastCheck>();
  for (const [key, s] of Object.entries(shape)) {
    const c = compileCheck(s);
    if (!c) return null;
    fields.set(key, c);
  }
  // A stripped unknown key would make the parsed value differ from the value: only
  // `passthrough` keeps them (unknown keys with `strict`, or with the default strip, say false).
  const passthrough = def.unknownKeys === 'passthrough';
  return (v) => {
    if (!isPlainObject(v)) return false;
    for (const [key, c] of fields) if (!c(Object.hasOwn(v, key) ? v[key] : undefined)) return false;
    if (!passthrough) for (const key in v) if (!fields.has(key)) return false;
    return true;
  };
}
