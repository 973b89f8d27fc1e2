// Bundles the CLI (dist/cli.cjs, started by dist/baton.cjs), the library (dist/index.js) and the
// store conformance suite (dist/testing.js, `baton/testing`), with type declarations.
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
  minify: true,
  sourcemap: false,
  legalComments: 'none',
  define: { BATON_VERSION: JSON.stringify(pkg.version) },
  banner: { js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);" },
  logLevel: 'warning',
};

// commander loads child_process (and with it net and dgram) only to run executable
// subcommands, which baton does not use; a stub keeps that cost out of every start-up.
const noChildProcess = {
  name: 'no-child-process',
  setup(b) {
    b.onResolve({ filter: /^(node:)?child_process$/ }, (args) =>
      args.importer.includes('node_modules/commander') ? { path: 'child_process', namespace: 'stub' } : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: 'stub' }, () => ({
      contents: "export default {}; export function spawn() { throw new Error('executable subcommands are not supported'); }",
      loader: 'js',
    }));
  },
};

// The CLI is one CommonJS file: Node's CommonJS loader starts faster than its ESM loader.
// zod, yaml, pg, the MCP SDK, cli-progress and the OpenTelemetry packages stay in node_modules
// and are required only by the commands that need them (`baton mcp` and `baton otel` reach them
// through lazily initialised modules).
await build({
  ...common,
  plugins: [noChildProcess],
  entryPoints: ['src/cli/bin.ts'],
  outfile: 'dist/cli.cjs',
  format: 'cjs',
  external: ['zod', 'yaml', 'pg', '@modelcontextprotocol/sdk', '@modelcontextprotocol/sdk/*', 'jsonc-parser', 'diff', 'smol-toml', '@opentelemetry/*', 'cli-progress'],
  define: { ...common.define, 'import.meta.url': '__filename' },
  banner: {},
});
// `baton hook …` runs on every tool call of an agent CLI: its own bundle, without commander,
// the MCP SDK or the CLI's commands, so the launcher can start it instead of cli.cjs.
await build({
  ...common,
  entryPoints: ['src/hooks/bin.ts'],
  outfile: 'dist/hook.cjs',
  format: 'cjs',
  external: ['zod', 'yaml', 'pg', '@modelcontextprotocol/sdk', '@modelcontextprotocol/sdk/*', 'commander'],
  define: { ...common.define, 'import.meta.url': '__filename' },
  banner: {},
});
// The `baton` command itself is a small launcher that runs cli.cjs (or hook.cjs) through V8's code cache.
const digest = (f) => createHash('sha256').update(readFileSync(new URL(`../dist/${f}`, import.meta.url))).digest('hex').slice(0, 16);
writeFileSync(
  new URL('../dist/baton.cjs', import.meta.url),
  readFileSync(new URL('../src/cli/launcher.cjs', import.meta.url), 'utf8').replace('__BATON_BUNDLE_HASH__', digest('cli.cjs')).replace('__BATON_HOOK_HASH__', digest('hook.cjs')),
);
// The library and `baton/testing` share their code in chunks, so a store written against the
// library throws the very BatonError class the suite checks for. vitest stays external: the
// test runner of whoever runs the suite.
await build({
  ...common,
  entryPoints: { index: 'src/index.ts', testing: 'src/testing/index.ts' },
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
