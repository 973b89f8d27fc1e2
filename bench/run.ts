// `npm run bench`: measures baton against baselines taken in the same run on the same disk,
// and writes BENCHMARKS.md. Every figure is a ratio, so the machine's speed cancels out; each
// is the median of alternating rounds (or the ratio of p50s of alternating runs).
//
//   npm run bench                       every section, rewrites BENCHMARKS.md
//   npm run bench -- --quick            fewer rounds, smaller data; prints only
//   npm run bench -- --only perf,cli    those sections; their rows in BENCHMARKS.md are replaced
//
// Sections: perf (hot path, group commit, load), mcp, cli, hooks, otel, ui, pg, peers.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { cli, CLI_EXPLANATION } from './cli.js';
import { root, rowLine } from './common.js';
import type { Row } from './common.js';
import { HOOK_EXPLANATION, hookLatency } from './hooks.js';
import { HOT_PATH_EXPLANATION, hotPath } from './hot-path.js';
import { MCP_EXPLANATION, mcpCall } from './mcp.js';
import { OTEL_EXPLANATION, otelExportLatency } from './otel.js';
import { PEERS_EXPLANATION, peers } from './peers.js';
import { UI_EXPLANATION, uiLatency } from './ui.js';
import { PG_EXPLANATION, pgAppends } from './postgres.js';
import { existingScaleSection, scaleCurves, writeScaleSection } from './scale.js';

/** The scale section's text when it ran (bench/scale.ts: a private PostgreSQL of its own). */
let scaleSection: string | null = null;

const SECTIONS: Record<string, (quick: boolean, work: string) => Promise<Row[]>> = {
  perf: hotPath,
  mcp: async (q, w) => [await mcpCall(q, w)],
  cli,
  hooks: async (q, w) => hookLatency(q, w),
  otel: async (q, w) => [await otelExportLatency(q, w)],
  ui: uiLatency,
  pg: async (q) => pgAppends(q),
  peers,
  scale: async (q) => {
    const r = await scaleCurves(q);
    scaleSection = r?.section ?? null;
    return r?.rows ?? [];
  },
};

const argv = process.argv.slice(2);
const quick = argv.includes('--quick');
const onlyAt = argv.indexOf('--only');
const only = onlyAt >= 0 ? (argv[onlyAt + 1] ?? '').split(',').filter(Boolean) : Object.keys(SECTIONS);
const unknown = only.filter((s) => !(s in SECTIONS));
if (unknown.length || (onlyAt >= 0 && !only.length)) {
  console.error(
    `Unknown section(s) ${unknown.join(', ') || '(none given)'}; sections: ${Object.keys(SECTIONS).join(', ')}.`,
  );
  process.exit(2);
}

const work = fs.mkdtempSync(path.join(os.tmpdir(), 'baton-bench-'));
const started = new Date();
const load0 = os.loadavg()[0]!;
const rows: Row[] = [];
try {
  for (const name of only) {
    const t0 = performance.now();
    const got = await SECTIONS[name]!(quick, work);
    for (const r of got) console.log(rowLine(r));
    console.error(
      `[${name}: ${((performance.now() - t0) / 1000).toFixed(0)} s, load average ${os.loadavg()[0]!.toFixed(1)}]`,
    );
    rows.push(...got);
  }
} finally {
  fs.rmSync(work, { recursive: true, force: true });
}
const load1 = os.loadavg()[0]!;

const HEADER = ['| measurement | baton | baseline (same run) | ratio | target | |', '|---|---|---|---|---|---|'];
const file = path.join(root, 'BENCHMARKS.md');

/** The table: this run's rows, and (with --only) the other rows as BENCHMARKS.md had them. */
function table(): string {
  const fresh = rows.map(rowLine);
  if (onlyAt < 0 || !fs.existsSync(file)) return [...HEADER, ...fresh].join('\n');
  // Only the rows of the main table: the scale section's tables further down are kept apart.
  const lines = fs.readFileSync(file, 'utf8').split('\n');
  const start = lines.indexOf(HEADER[1]!) + 1;
  const end = lines.findIndex((l, i) => i >= start && !l.startsWith('| '));
  const kept = start > 0 ? lines.slice(start, end < 0 ? lines.length : end) : [];
  const nameOf = (l: string): string => l.split(' | ')[0]!;
  const mine = new Map(rows.map((r, i) => [`| ${r.name}`, fresh[i]!]));
  const out = kept.map((l) => mine.get(nameOf(l)) ?? l);
  for (const [n, l] of mine) if (!kept.some((k) => nameOf(k) === n)) out.push(l);
  return [...HEADER, ...out].join('\n');
}

if (!quick) {
  const doc = `# Benchmarks

Produced by \`npm run bench\` (\`bench/run.ts\`); last run ${started.toISOString().slice(0, 16).replace('T', ' ')} UTC${onlyAt >= 0 ? ` (sections ${only.join(', ')}; the other rows are from earlier runs)` : ''}:
${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, Node ${process.version}, ${os.platform()}, load average ${load0.toFixed(1)} at the start and ${load1.toFixed(1)} at the end.
Every figure is a ratio to a baseline measured in the same run on the same disk, so it says
how baton compares, not how fast this machine is. Rates are medians of alternating rounds;
latencies are p50s of alternating runs. A loaded machine (load average well above the CPU
count) makes the ratios noisy, mostly against baton's CPU-bound parts.

Run it: \`npm run bench\` (every section, about 10 minutes), \`npm run bench -- --quick\`
(smaller, prints only), \`npm run bench -- --only perf,mcp\` (sections: ${Object.keys(SECTIONS).join(', ')}).

${table()}

How each is measured:
${HOT_PATH_EXPLANATION}
${MCP_EXPLANATION}
${CLI_EXPLANATION}
${HOOK_EXPLANATION}
${OTEL_EXPLANATION}
${UI_EXPLANATION}
${PG_EXPLANATION}
${PEERS_EXPLANATION}
`;
  // The scale section follows the table; a run without it keeps the one measured before.
  const kept = scaleSection ?? (fs.existsSync(file) ? existingScaleSection(fs.readFileSync(file, 'utf8')) : null);
  fs.writeFileSync(file, kept ? writeScaleSection(doc, kept) : doc);
  console.log('\nWrote BENCHMARKS.md');
}
if (rows.some((r) => !r.pass)) process.exitCode = 1;
