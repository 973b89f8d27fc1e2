// Bundles the CLI into dist/ (one entry file plus lazily loaded chunks) and the library.
import { build } from 'esbuild';
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, readFileSync, rmSync } from 'node:fs';
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

await build({
  ...common,
  plugins: [noChildProcess],
  entryPoints: { baton: 'src/cli/bin.ts' },
  outdir: 'dist',
  splitting: true,
  chunkNames: 'chunks/[name]-[hash]',
  banner: { js: `#!/usr/bin/env node\n${common.banner.js}` },
});
await build({ ...common, entryPoints: { index: 'src/index.ts' }, outdir: 'dist', packages: 'external', minify: false });
chmodSync(new URL('../dist/baton.js', import.meta.url), 0o755);

// Type declarations for library users (tsc is a dev dependency; skipped when it is absent).
const tsc = fileURLToPath(new URL('../node_modules/typescript/bin/tsc', import.meta.url));
if (existsSync(tsc)) {
  const r = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.build.json'], { stdio: 'inherit' });
  if (r.status !== 0) process.exit(r.status ?? 1);
}
