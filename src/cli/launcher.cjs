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

function run() {
  if (process.env.BATON_NO_CODE_CACHE) return false;
  const vm = require('node:vm');
  const files = cacheFiles();
  let cachedData;
  for (const f of files) {
    try {
      cachedData = fs.readFileSync(f);
      break;
    } catch {
      // not there: try the next place
    }
  }
  // V8 caches the functions compiled before the cache is made: it is made at the exit of the
  // first run (or of a run that found it unusable), with what that command compiled.
  const script = new vm.Script(Module.wrap(fs.readFileSync(bundle, 'utf8')), { filename: bundle, cachedData });
  const mod = new Module(bundle, module);
  mod.filename = bundle;
  mod.paths = Module._nodeModulePaths(__dirname);
  const req = (id) => mod.require(id);
  req.resolve = (id) => Module._resolveFilename(id, mod);
  if (cachedData === undefined || script.cachedDataRejected) {
    process.once('exit', () => {
      const data = script.createCachedData();
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
