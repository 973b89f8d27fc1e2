#!/usr/bin/env node
'use strict';
// The `baton` command. Runs a bundled CLI (cli.cjs or hook.cjs beside this file)
// through V8's code cache, which Node 20 has no switch for: compiling the bundle is a fifth of
// a command's start-up, and a command runs many times per workflow. The cache is keyed by the
// bundle's content hash (filled in at build time), kept beside the bundle or else in the
// user's cache folder, and only ever an optimisation: any problem with it falls back to a
// plain require.
const fs = require('node:fs');
const path = require('node:path');
// node:module's Module, without loading node:module (its public API, a part of every start-up).
const Module = module.constructor;

// A command may have a bundle of its own (`baton hook …`, run by agent CLIs on every tool call:
// smaller and quicker to start than the whole CLI): the rows of src/cli/command-table.ts with a
// `bundle`, filled in at build time. Everything else runs the whole CLI, cli.cjs.
const OWN = new Map(__BATON_OWN_BUNDLES__);
/** Each bundle's content hash, filled in at build time: the key of its cache. */
const HASHES = __BATON_BUNDLE_HASHES__;

const kind = OWN.get(process.argv[2]) ?? 'cli';
const bundle = path.join(__dirname, `${kind}.cjs`);
const HASH = HASHES[kind];

function cacheFiles() {
  const name = `${kind}-${HASH}.v8cache`;
  const home = process.env.XDG_CACHE_HOME || (process.env.HOME ? path.join(process.env.HOME, '.cache') : null);
  return [path.join(__dirname, name), ...(home ? [path.join(home, 'baton', name)] : [])];
}

// A cache file starts with a line naming the commands whose runs made it; V8's data follows.
// V8 caches only the functions compiled before the cache was made, so a cache made by
// `baton init` lacks most of what `baton tokens add` runs, which would then compile it on every
// call. A command not yet named rewrites the cache at exit: it then holds the functions of
// every command named (V8 keeps what it read from the cache), and each command makes it once.
// Measured on cli.cjs: the cache of an agent's usual commands (init … file, 650 KB) takes
// about 1 ms longer to read than that of `tokens add` alone (470 KB); a command missing from
// it costs 3 ms of compiling on every call.
const MAGIC = 'baton-v8cache/1 ';
/** Past this many commands named, the cache is no longer rewritten (a bound for odd argv). */
const MAX_WORDS = 64;

/** The cache's key for this run: the command word, or '-' when argv starts otherwise. */
function commandWord() {
  const w = process.argv[2];
  return typeof w === 'string' && /^[a-z][a-z-]{0,30}$/.test(w) ? w : '-';
}

/** V8's data and the commands named in `buf`, or null for a file of another shape. */
function parseCache(buf) {
  const nl = buf.indexOf(10);
  if (nl < MAGIC.length || nl > 4096 || buf.toString('latin1', 0, MAGIC.length) !== MAGIC) return null;
  return { words: buf.toString('latin1', MAGIC.length, nl).split(','), data: buf.subarray(nl + 1) };
}

function run() {
  if (process.env.BATON_NO_CODE_CACHE) return false;
  const vm = require('node:vm');
  // The bundle is ASCII (esbuild escapes the rest): read as Latin-1, the same characters
  // without UTF-8 decoding, a millisecond less for cli.cjs; anything else is decoded.
  const bytes = fs.readFileSync(bundle);
  const source = require('node:buffer').isAscii(bytes) ? bytes.toString('latin1') : bytes.toString('utf8');
  const files = cacheFiles();
  let cache = null;
  for (const f of files) {
    try {
      cache = parseCache(fs.readFileSync(f));
      break;
    } catch {
      // not there: try the next place
    }
  }
  // The bundle's text is already the function Node would wrap it in (scripts/build.mjs).
  const script = new vm.Script(source, { filename: bundle, cachedData: cache ? cache.data : undefined });
  const mod = new Module(bundle, module);
  mod.filename = bundle;
  mod.paths = Module._nodeModulePaths(__dirname);
  const req = (id) => mod.require(id);
  req.resolve = (id) => Module._resolveFilename(id, mod);
  const word = commandWord();
  const usable = cache !== null && !script.cachedDataRejected;
  if (!usable || (!cache.words.includes(word) && cache.words.length < MAX_WORDS)) {
    const words = usable ? [...cache.words, word] : [word];
    process.once('exit', () => {
      const data = Buffer.concat([Buffer.from(`${MAGIC}${words.join(',')}\n`, 'latin1'), script.createCachedData()]);
      for (const f of files) {
        try {
          fs.mkdirSync(path.dirname(f), { recursive: true, mode: 0o700 });
          const tmp = `${f}.${process.pid}.tmp`;
          fs.writeFileSync(tmp, data, { mode: 0o600 });
          fs.renameSync(tmp, f);
          return;
        } catch {
          // read-only install: try the next place
        }
      }
    });
  }
  const main = script.runInThisContext();
  launched = true;
  main.call(mod.exports, mod.exports, req, mod, bundle, __dirname);
  return true;
}

// Set once the CLI itself runs: after that an exception is the CLI's, not the cache's.
let launched = false;
let ran = false;
try {
  ran = run();
} catch (e) {
  if (launched) throw e;
}
if (!ran) require(bundle);
