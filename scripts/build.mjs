// Bundles the CLI (dist/cli.cjs and dist/hook.cjs, started by dist/baton.cjs), the library (dist/index.js) and the
// store conformance suite (dist/testing.js, `baton-sessions/testing`), with type declarations.
import { build } from 'esbuild';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
rmSync(new URL('../dist', import.meta.url), { recursive: true, force: true });

const common = {
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  // BATON_NO_MINIFY=1 keeps names readable, for profiling start-up.
  minify: !process.env.BATON_NO_MINIFY,
  sourcemap: false,
  legalComments: 'none',
  define: { BATON_VERSION: JSON.stringify(pkg.version) },
  banner: { js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);" },
  logLevel: 'warning',
};

// commander loads child_process (and with it net and dgram) only to run executable
// subcommands, which baton does not use; a stub keeps that cost out of every start-up (with
// src/cli/start.ts keeping node:tty off it, node:net is not loaded: BENCHMARKS.md's `tokens add` row needs it).
const noChildProcess = {
  name: 'no-child-process',
  setup(b) {
    b.onResolve({ filter: /^(node:)?child_process$/ }, (args) =>
      args.importer.includes('node_modules/commander') ? { path: 'child_process', namespace: 'stub' } : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: 'stub' }, () => ({
      contents:
        "export default {}; export function spawn() { throw new Error('executable subcommands are not supported'); }",
      loader: 'js',
    }));
  },
};

// Which exports of the built-ins are lazy getters (fs.Dir loads internal/fs/dir, fs.promises
// the promise API): read in a fresh process, because importing a built-in here (as below) runs
// its getters, and some then replace themselves with plain values.
const BUILTINS = ['fs', 'path', 'os', 'crypto', 'url', 'module', 'fs/promises', 'util', 'zlib', 'events'];
const lazyExports = JSON.parse(
  spawnSync(
    process.execPath,
    [
      '-e',
      `const out = {}; for (const m of ${JSON.stringify(BUILTINS)}) { const x = require('node:' + m); out['node:' + m] = Object.keys(x).filter((k) => !('value' in Object.getOwnPropertyDescriptor(x, k))); } process.stdout.write(JSON.stringify(out));`,
    ],
    { encoding: 'utf8' },
  ).stdout,
);

// esbuild wraps each default import of a Node built-in (\`import fs from 'node:fs'\`) in a
// CommonJS bundle with __toESM, which copies every export of the module as a getter, at every
// import site: dozens of copies of node:fs and node:path at each start-up. One shared ES module
// per built-in (its default and its named exports, read from the built-in at build time) is
// required once instead: without it `tokens add` took 11% more CPU time, past its row's target (BENCHMARKS.md).
const builtinOnce = {
  name: 'builtin-once',
  setup(b) {
    b.onResolve({ filter: new RegExp(`^node:(${BUILTINS.join('|').replace('/', '\\/')})$`) }, (args) =>
      // A require() (commander's) wants the module itself: through the shared ES module it would
      // get esbuild's __toCommonJS copy of every export, made at start-up.
      args.namespace === 'builtin-once' || args.kind === 'require-call'
        ? { path: args.path, external: true }
        : { path: args.path, namespace: 'builtin-once' },
    );
    b.onLoad({ filter: /.*/, namespace: 'builtin-once' }, async (args) => {
      const mod = await import(args.path);
      // Data properties only: reading a lazy getter (fs.promises, crypto.webcrypto) at start-up
      // would load what it defers. A module that uses one imports the default and reads it.
      const lazy = new Set(lazyExports[args.path] ?? []);
      const names = Object.keys(mod).filter(
        (k) =>
          k !== 'default' &&
          /^[A-Za-z_$][\w$]*$/.test(k) &&
          !lazy.has(k) &&
          'value' in (Object.getOwnPropertyDescriptor(mod.default, k) ?? {}),
      );
      return {
        contents: `const m = require(${JSON.stringify(args.path)});\nexport default m;\n${names.map((n) => `export const ${n} = m.${n};`).join('\n')}\n`,
        loader: 'js',
      };
    });
  },
};

// The CLI is one CommonJS file: Node's CommonJS loader starts faster than its ESM loader.
// zod, yaml, pg, the MCP SDK, cli-progress and the OpenTelemetry packages stay in node_modules
// and are required only by the commands that need them (`baton mcp` and `baton otel` reach them
// through lazily initialised modules).
const cliBundle = {
  ...common,
  plugins: [noChildProcess, builtinOnce],
  // No ES module banner: a CommonJS bundle has its own require.
  banner: {},
  format: 'cjs',
  external: [
    'zod',
    'yaml',
    'pg',
    '@modelcontextprotocol/sdk',
    '@modelcontextprotocol/sdk/*',
    'jsonc-parser',
    'diff',
    'smol-toml',
    '@opentelemetry/*',
    'cli-progress',
  ],
  define: { ...common.define, 'import.meta.url': '__filename' },
};
await build({ ...cliBundle, entryPoints: ['src/cli/bin.ts'], outfile: 'dist/cli.cjs' });
// `baton hook …` runs on every tool call of an agent CLI: its own bundle, without commander,
// the MCP SDK or the CLI's commands, so the launcher can start it instead of cli.cjs.
await build({
  ...common,
  plugins: [builtinOnce],
  banner: {},
  entryPoints: ['src/hooks/bin.ts'],
  outfile: 'dist/hook.cjs',
  format: 'cjs',
  external: ['zod', 'yaml', 'pg', '@modelcontextprotocol/sdk', '@modelcontextprotocol/sdk/*', 'commander'],
  define: { ...common.define, 'import.meta.url': '__filename' },
});
// The dashboard's web page (`baton ui`): its code and styles with their libraries (preact,
// uPlot, marked, DOMPurify) bundled into dist/ui/, served from the package; nothing is fetched
// from elsewhere at run time, and no other command loads any of it.
await build({
  entryPoints: { app: 'src/ui/web/main.tsx' },
  outdir: 'dist/ui',
  bundle: true,
  platform: 'browser',
  format: 'esm',
  target: ['es2022', 'chrome110', 'firefox115', 'safari16'],
  minify: true,
  sourcemap: false,
  jsx: 'automatic',
  jsxImportSource: 'preact',
  legalComments: 'linked',
  logLevel: 'warning',
});
// The `baton` command itself is a small launcher that runs cli.cjs (or the bundle of its own a
// command has: its row's `bundle` in src/cli/command-table.ts) through V8's code cache. The table
// is read here, bundled as the CLI has it, so the routing is never written by hand.
const tableFile = fileURLToPath(new URL('../dist/command-table.tmp.mjs', import.meta.url));
await build({ ...common, entryPoints: ['src/cli/command-table.ts'], outfile: tableFile, packages: 'external' });
const { COMMANDS } = await import(tableFile);
rmSync(tableFile);
const own = COMMANDS.filter((c) => c.bundle).map((c) => [c.name, c.bundle]);
const digest = (f) =>
  createHash('sha256')
    .update(readFileSync(new URL(`../dist/${f}`, import.meta.url)))
    .digest('hex')
    .slice(0, 16);
const hashes = Object.fromEntries(['cli', ...new Set(own.map(([, b]) => b))].map((b) => [b, digest(`${b}.cjs`)]));
writeFileSync(
  new URL('../dist/baton.cjs', import.meta.url),
  readFileSync(new URL('../src/cli/launcher.cjs', import.meta.url), 'utf8')
    .replace('__BATON_OWN_BUNDLES__', JSON.stringify(own))
    .replace('__BATON_BUNDLE_HASHES__', JSON.stringify(hashes)),
);
// The library, its pure helpers (`baton-sessions/domain`), `baton-sessions/testing`, `baton-sessions/langgraph` and
// `baton-sessions/claude-agent-sdk`
// share their code in chunks, so a store written against the library throws the very BatonError class the suite
// checks for. vitest and LangGraph stay external: the test runner of whoever runs the suite, the LangGraph of
// whoever runs the graph.
await build({
  ...common,
  entryPoints: {
    index: 'src/index.ts',
    domain: 'src/domain/index.ts',
    testing: 'src/testing/index.ts',
    langgraph: 'src/langgraph/index.ts',
    'claude-agent-sdk': 'src/claude-agent-sdk/index.ts',
  },
  outdir: 'dist',
  splitting: true,
  chunkNames: 'chunks/[name]-[hash]',
  packages: 'external',
  minify: false,
});
chmodSync(new URL('../dist/baton.cjs', import.meta.url), 0o755);

// Type declarations for library users (tsc is a dev dependency; skipped when it is absent).
const tsc = fileURLToPath(new URL('../node_modules/typescript/bin/tsc', import.meta.url));
if (existsSync(tsc)) {
  const r = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.build.json'], { stdio: 'inherit' });
  if (r.status !== 0) process.exit(r.status ?? 1);
}
