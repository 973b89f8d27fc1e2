import path from 'node:path';
import type { HookCli } from './targets.js';
import { isHookCli } from './targets.js';

/** The store a hook command writes to: a directory, a URL, or (neither) the nearest `.baton` of the agent's folder. */
export interface HookStore {
  dir?: string;
  store?: string;
}

/** The program a hook command runs by default: `baton`, found on the PATH the agent CLI gives its hooks. */
export const DEFAULT_HOOK_PROGRAM = 'baton';

/** What a hook command runs: the program (shell words that start baton), the CLI and the store. */
export interface HookCommand extends HookStore {
  /** Shell text that runs baton, e.g. `baton` or `node /opt/baton/dist/baton.cjs`; `hook <cli>` follows it. */
  program: string;
  cli: HookCli;
}

/** Quotes a word for a POSIX shell (the CLIs run hook commands through one). */
export function shellQuote(word: string): string {
  return /^[A-Za-z0-9_./:=@%+,-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/**
 * The command line of one hook: the program (by default `baton`, looked up on the PATH, so the
 * line works on every machine where baton is installed, and a project's committed config file
 * does not name one machine's paths), `hook <cli>`, and the store when one was named.
 */
export function buildHookCommand(c: HookCommand): string {
  const words = ['hook', c.cli];
  if (c.store) words.push('--store', c.store);
  else if (c.dir) words.push('--dir', c.dir);
  return `${c.program.trim()} ${words.map(shellQuote).join(' ')}`;
}

/** Splits a command line into words the way a POSIX shell would for plain quoting (no expansion). */
export function shellWords(line: string): string[] {
  const words: string[] = [];
  let cur = '';
  let inWord = false;
  let quote: '"' | "'" | null = null;
  for (let i = 0; i < line.length; i++) {
    const ch = line[i] as string;
    if (quote === "'") {
      if (ch === "'") quote = null;
      else cur += ch;
    } else if (quote === '"') {
      if (ch === '"') quote = null;
      else if (ch === '\\' && i + 1 < line.length && '"\\$`'.includes(line[i + 1] as string)) cur += line[++i];
      else cur += ch;
    } else if (ch === "'" || ch === '"') {
      quote = ch;
      inWord = true;
    } else if (ch === '\\' && i + 1 < line.length) {
      cur += line[++i];
      inWord = true;
    } else if (/\s/.test(ch)) {
      if (inWord) words.push(cur);
      cur = '';
      inWord = false;
    } else {
      cur += ch;
      inWord = true;
    }
  }
  if (inWord) words.push(cur);
  return words;
}

/** Names of the program a baton hook command runs (the bundle, its launcher, the installed bin, the npm package). */
const BATON_PROGRAM = /^(baton|baton-sessions|baton\.cjs|cli\.cjs|baton\.js|baton\.mjs)$/;

/** What {@link parseHookCommand} reads from a baton hook command. */
export interface ParsedHookCommand {
  cli: HookCli;
  /** The word the shell runs (after environment assignments): `baton`, `node`, `npx`, a path… */
  launcher: string;
  /** The node binary before the bundle, if one is named. */
  node: string | null;
  /** The bundle's path, if one is named (null for the `baton` bin). */
  script: string | null;
  store: HookStore;
}

/**
 * Recognises a baton hook command: some word naming baton's program (any path: the bundle
 * may have moved, or been run through `npx`) followed later by `hook <cli>`. Returns the CLI
 * and store it names, or null for any other command. Environment assignments before the
 * program (`BATON_DIR=… node …`) are read as the store too.
 */
export function parseHookCommand(line: string): ParsedHookCommand | null {
  const words = shellWords(line);
  const prog = words.findIndex((w) => BATON_PROGRAM.test(path.basename(w)));
  if (prog < 0) return null;
  const at = words.indexOf('hook', prog + 1);
  const cli = words[at + 1];
  if (at < 0 || cli === undefined || !isHookCli(cli)) return null;
  const store: HookStore = {};
  for (let i = 0; i < words.length; i++) {
    const w = words[i] as string;
    const env = /^(BATON_DIR|BATON_STORE)=(.*)$/.exec(w);
    if (env && i < prog) store[env[1] === 'BATON_DIR' ? 'dir' : 'store'] = env[2];
    const flag = /^--(dir|store)(?:=(.*))?$/.exec(w);
    if (flag && i > at) store[flag[1] as 'dir' | 'store'] = flag[2] ?? words[++i] ?? '';
  }
  const script = /^baton(-sessions)?$/.test(path.basename(words[prog] as string)) ? null : (words[prog] as string);
  const node =
    prog > 0 && /(^|\/)node(js)?(\.exe)?$/.test(words[prog - 1] as string) ? (words[prog - 1] as string) : null;
  const launcher = words.find((w) => !/^[A-Za-z_][A-Za-z0-9_]*=/.test(w)) as string;
  return { cli, launcher, node, script, store };
}

/** A store URL fit to print: its password, if any, masked. */
export function redactStore(location: string): string {
  return location.replace(/^([a-z]+:\/\/[^/@:]*):[^/@]*@/i, '$1:***@');
}
