/**
 * The phases a session starts with, from wherever a surface got them: a plan file (JSON or
 * YAML, hashed so that a resume can tell whether it changed), a comma-separated list, or a
 * plan object. The plan schema (zod) and the YAML parser load on first use.
 */
import { SETTING_KEYS } from '../domain/settings.js';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { BatonError } from '../domain/errors.js';
import type { BudgetSetInput } from '../domain/spend/budget-policy.js';
import type { PhaseSpec } from '../domain/events.js';
import { nodeCrypto } from './lazy.js';

const MAX_PLAN_BYTES = 5 * 1024 * 1024;

const require = createRequire(import.meta.url);

/*
 * A plain require, not `import()`: the CLI bundle runs through V8's code cache, where a
 * dynamic import of a package has no loader to resolve it.
 */
function parseYaml(text: string): unknown {
  return (require('yaml') as typeof import('yaml')).parse(text);
}

/** A plan file as read: its title, budgets and phases, where it is, and the sha256 of its text. */
export interface PlanFile {
  title?: string;
  /** The session's token budget. */
  budget?: number;
  /** The other budgets it sets (pass them to `start` as `budgets`). */
  budgets?: BudgetSetInput[];
  phases: PhaseSpec[];
  /** Absolute path. */
  abs: string;
  sha256: string;
}

/**
 * `bytes` as UTF-8 text; `BAD_INPUT` naming `what` and the offset of the first byte that is
 * not UTF-8, rather than text with U+FFFD stored in its place.
 */
export function utf8Text(bytes: Uint8Array, what: string): string {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    const at = Buffer.from(bytes).toString('utf8').indexOf('\uFFFD');
    throw new BatonError(
      'BAD_INPUT',
      `${what} is not UTF-8 text (bad bytes near byte ${Math.max(0, Buffer.byteLength(Buffer.from(bytes).toString('utf8').slice(0, at)))}).`,
      {
        hint: 'Save it as UTF-8 (e.g. `iconv -f latin1 -t utf-8`) and try again; nothing was written.',
      },
    );
  }
}

/** Reads a plan file (.json, .yaml/.yml; others tried as JSON then YAML); BAD_INPUT names what is wrong. */
export async function readPlanFile(file: string, cwd: string): Promise<PlanFile> {
  const abs = path.resolve(cwd, file);
  let raw: string;
  try {
    const st = fs.statSync(abs);
    if (!st.isFile())
      throw new BatonError('BAD_INPUT', `Plan ${file} is not a file.`, { hint: 'Pass a .json or .yaml plan file.' });
    if (st.size > MAX_PLAN_BYTES)
      throw new BatonError('BAD_INPUT', `Plan ${file} is ${st.size} bytes; at most ${MAX_PLAN_BYTES} are read.`, {
        hint: 'Split the plan.',
      });
    raw = utf8Text(fs.readFileSync(abs), `Plan ${file}`).replace(/^\uFEFF/, '');
  } catch (e) {
    if (e instanceof BatonError) throw e;
    throw new BatonError('BAD_INPUT', `Cannot read plan ${file}: ${(e as Error).message}.`, {
      hint: 'Check the path.',
    });
  }
  const { parsePlan } = await import('../domain/plan.js');
  const ext = path.extname(abs).toLowerCase();
  let doc: unknown;
  const asYaml = (): unknown => parseYaml(raw);
  try {
    if (ext === '.json') doc = JSON.parse(raw);
    else if (ext === '.yaml' || ext === '.yml') doc = asYaml();
    else {
      try {
        doc = JSON.parse(raw);
      } catch {
        doc = asYaml();
      }
    }
  } catch (e) {
    throw new BatonError(
      'BAD_INPUT',
      `Plan ${file} is not valid ${ext === '.json' ? 'JSON' : 'JSON or YAML'}: ${(e as Error).message.split('\n')[0]}.`,
      {
        hint: 'Fix the syntax; a plan is {"phases": [{"id": "design", "name": "Design"}, …]}.',
      },
    );
  }
  // Kept with the session, so that a resume can tell whether the plan changed since.
  const sha256 = nodeCrypto()
    .createHash('sha256')
    .update(raw.replace(/^\uFEFF/, ''))
    .digest('hex');
  return { ...parsePlan(doc, file), abs, sha256 };
}

/**
 * The session metadata that records a plan file (see resume.ts `planChanged`): its path,
 * relative to the workspace `root` when inside it, and its hash.
 */
export function planFileMetadata(root: string, plan: PlanFile): Record<string, unknown> {
  const rel = path.relative(root, plan.abs);
  const kept = rel && !rel.startsWith('..') && !path.isAbsolute(rel) ? rel.split(path.sep).join('/') : plan.abs;
  return { [SETTING_KEYS.planFile]: { path: kept, sha256: plan.sha256 } };
}

/** Phases from a comma-separated list of names (`--phases a,b,c`). */
export async function phasesFromList(list: string): Promise<PhaseSpec[]> {
  return (await import('../domain/plan.js')).phasesFromList(list);
}

/** Phases of a plan object (`{phases: [...]}`), checked as a plan file's are; `source` names it in errors. */
export async function phasesOfPlan(doc: unknown, source: string): Promise<PhaseSpec[]> {
  return (await import('../domain/plan.js')).parsePlan(doc, source).phases;
}
