#!/usr/bin/env node
'use strict';
// The `baton` command. Runs the bundled CLI (cli.cjs beside this file) through V8's code
// cache, which Node 20 has no switch for: compiling the bundle is a fifth of a command's
// start-up, and a command runs many times per workflow. The cache is keyed by the bundle's
// content hash (filled in at build time), kept beside the bundle or else in the user's cache
// folder, and only ever an optimisation: any problem with it falls back to a plain require.
const fs = require('node:fs');
const path = require('node:path');
const Module = require('node:module');

// `baton hook …` (run by agent CLIs on every tool call) has a bundle of its own, smaller and
// quicker to start than the whole CLI.
const isHook = process.argv[2] === 'hook';
const bundle = path.join(__dirname, isHook ? 'hook.cjs' : 'cli.cjs');
const HASH = isHook ? '__BATON_HOOK_HASH__' : '__BATON_BUNDLE_HASH__';

function cacheFiles() {
  const name = `${isHook ? 'hook' : 'cli'}-${HASH}.v8cache`;
  const home = process.env.XDG_CACHE_HOME || (process.env.HOME ? path.join(process.env.HOME, '.cache') : null);
  return [path.join(__dirname, name), ...(home ? [path.join(home, 'baton', name)] : [])];
}

function run() {
  if (process.env.BATON_NO_CODE_CACHE) return false;
  const vm = require('node:vm');
  const source = fs.readFileSync(bundle, 'utf8');
  const files = cacheFiles();
  let cached;
  for (const f of files) {
    try {
      cached = fs.readFileSync(f);
      break;
    } catch {
      // not there: try the next place
    }
  }
  const script = new vm.Script(Module.wrap(source), { filename: bundle, cachedData: cached });
  const mod = new Module(bundle, module);
  mod.filename = bundle;
  mod.paths = Module._nodeModulePaths(__dirname);
  const req = (id) => mod.require(id);
  req.resolve = (id) => Module._resolveFilename(id, mod);
  if (!cached || script.cachedDataRejected) {
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
