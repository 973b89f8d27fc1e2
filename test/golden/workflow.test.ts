/**
 * Golden comparison of what a user sees: one scripted workflow run through the CLI (human and
 * `--json` output), the MCP server (tool results) and the foreign-format exporters, compared
 * byte for byte (after the narrow normalisation in ./normalise.ts) with the goldens committed
 * next to this file. It was recorded from the code before the architecture refactor (issue 10),
 * so any change a user could see shows up here as a diff.
 *
 * A deliberate change of output: `UPDATE_GOLDEN=1 npx vitest run test/golden` rewrites the
 * goldens; review and commit the diff with the change that caused it.
 *
 * The CLI runs in-process through `run(io)` with an injected clock that is fixed per step, so
 * times are exact. The MCP server is the real `baton mcp` (the built `dist/baton.cjs`) over
 * stdio, because that is the surface MCP clients use; its clock is `BATON_NOW` and runs on,
 * so its times are normalised (see normalise.ts).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { run } from '../../src/cli/main.js';
import { compareGolden } from './compare.js';
import { mcpSession } from './mcp-client.js';
import { normalise, treeText } from './normalise.js';

// Human output shows times in local time (`baton log`): one zone, so the files do not depend on the machine's.
process.env['TZ'] = 'UTC';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.resolve(HERE, '../..');
const FIXTURES = path.join(ROOT, 'test', 'fixtures', 'formats');
const T0 = Date.parse('2026-05-01T10:00:00.000Z');
const FORMATS = ['maestro', 'go-team', 'bmit', 'bmad', 'ccw'] as const;

const made: string[] = [];
afterAll(() => {
  for (const d of made.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

function tempDir(label: string): string {
  const d = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), `baton-golden-${label}-`)));
  made.push(d);
  return d;
}

const PLAN = `title: Golden plan
phases:
  - id: design
    name: Design
  - id: build
    name: Build
    blockedBy: [design]
  - id: review
    name: Review
    blockedBy: [build]
`;

/** Prepares a workspace the script runs in: a plan file and the files the session records. */
function workspace(label: string): string {
  const ws = tempDir(label);
  fs.writeFileSync(path.join(ws, 'plan.yaml'), PLAN);
  fs.mkdirSync(path.join(ws, 'src'));
  fs.writeFileSync(path.join(ws, 'src', 'a.ts'), 'export const a = 1;\n');
  fs.mkdirSync(path.join(ws, 'docs'));
  fs.writeFileSync(path.join(ws, 'docs', 'spec.md'), '# Spec\n');
  fs.cpSync(path.join(FIXTURES, 'maestro', 'mid-run-yaml'), path.join(ws, 'foreign'), { recursive: true });
  return ws;
}

interface Output {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the CLI in-process in `cwd` at the fixed time `at`. */
async function cli(cwd: string, argv: string[], at: number): Promise<Output> {
  let stdout = '';
  let stderr = '';
  const code = await run({
    argv,
    cwd,
    env: { NO_COLOR: '1', BATON_AGENT: 'golden-agent', PATH: process.env['PATH'] ?? '' },
    stdout: (s) => void (stdout += s),
    stderr: (s) => void (stderr += s),
    isTTY: false,
    now: () => new Date(at),
  });
  return { code, stdout, stderr };
}

/** The steps of the scripted workflow: each runs once without and once with `--json`. */
function steps(): Array<{ name: string; argv: string[]; before?: (ws: string) => void }> {
  return [
    { name: 'init', argv: ['init'] },
    {
      name: 'start with a plan file',
      argv: ['start', 'Golden workflow', '--id', 'golden', '--plan', 'plan.yaml', '--budget', '100000'],
    },
    { name: 'status', argv: ['status'] },
    { name: 'list', argv: ['list'] },
    { name: 'mirror set', argv: ['mirror', 'bmit', '--out', 'mirror'] },
    { name: 'phase start', argv: ['phase', 'start', 'design'] },
    { name: 'substep', argv: ['substep', 'design', 'draft the API'] },
    { name: 'file created', argv: ['file', 'created', 'src/a.ts'] },
    {
      name: 'file modified',
      argv: ['file', 'modified', 'src/a.ts'],
      before: (ws) => fs.writeFileSync(path.join(ws, 'src', 'a.ts'), 'export const a = 2;\n'),
    },
    { name: 'error add', argv: ['error', 'add', '--phase', 'design', '--type', 'build', '--message', 'tsc failed'] },
    { name: 'error resolve', argv: ['error', 'resolve', 'err-1', '--resolution', 'fixed the types'] },
    {
      name: 'tokens add',
      argv: ['tokens', 'add', '--phase', 'design', '--input', '1200', '--output', '300', '--cached', '100'],
    },
    { name: 'tokens', argv: ['tokens'] },
    { name: 'tokens by phase', argv: ['tokens', '--by', 'phase'] },
    { name: 'budget set', argv: ['budget', 'set', '1600'] },
    {
      name: 'decision add',
      argv: [
        'decision',
        'add',
        '--title',
        'Storage',
        '--choice',
        'file store',
        '--rationale',
        'no server',
        '--alternative',
        'postgres',
      ],
    },
    { name: 'finding add', argv: ['finding', 'add', 'list is slow', '--severity', 'medium'] },
    { name: 'finding add 2', argv: ['finding', 'add', 'typo in README'] },
    { name: 'finding remove', argv: ['finding', 'remove', 'fnd-2'] },
    { name: 'note add', argv: ['note', 'add', 'keep the API small'] },
    { name: 'milestone add', argv: ['milestone', 'add', 'MVP', '--target', '2026-06-01'] },
    { name: 'milestone done', argv: ['milestone', 'done', 'ms-1'] },
    { name: 'artifact add', argv: ['artifact', 'add', 'docs/spec.md', '--kind', 'doc', '--description', 'the spec'] },
    { name: 'context set', argv: ['context', 'set', 'Design is done; build next.'] },
    { name: 'phase complete (auto checkpoint)', argv: ['phase', 'complete', 'design'] },
    { name: 'phase start build', argv: ['phase', 'start', 'build'] },
    { name: 'phase fail', argv: ['phase', 'fail', 'build', '--reason', 'tests red'] },
    { name: 'phase retry', argv: ['phase', 'retry', 'build'] },
    { name: 'checkpoint', argv: ['checkpoint', 'before refactor'] },
    { name: 'checkpoints', argv: ['checkpoints'] },
    { name: 'note after checkpoint', argv: ['note', 'add', 'to be rolled back'] },
    { name: 'restore', argv: ['restore', 'cp-2-before-refactor'] },
    { name: 'checkpoints after restore', argv: ['checkpoints'] },
    { name: 'pause', argv: ['pause', '--reason', 'lunch'] },
    { name: 'resume plan', argv: ['resume'] },
    { name: 'handoff', argv: ['handoff'] },
    { name: 'resume --apply', argv: ['resume', '--apply'] },
    { name: 'status after resume', argv: ['status'] },
    { name: 'mirror show', argv: ['mirror'] },
    { name: 'log', argv: ['log'] },
    { name: 'doctor', argv: ['doctor'] },
    ...FORMATS.map((f) => ({ name: `export ${f}`, argv: ['export', '--format', f, '--out', `exports/${f}`] })),
    { name: 'inspect foreign folder', argv: ['inspect', 'foreign'] },
    { name: 'import foreign folder', argv: ['import', 'foreign'] },
    { name: 'list after import', argv: ['list', '--all'] },
    { name: 'error: unknown session', argv: ['status', '--session', 'no-such-session'] },
    { name: 'error: bad input (number)', argv: ['tokens', 'add', '--input', 'many', '--output', '1'] },
    { name: 'error: bad input (id)', argv: ['start', 'Bad', '--id', '../escape'] },
    { name: 'error: invalid transition', argv: ['phase', 'complete', 'design'] },
    { name: 'error: unknown option', argv: ['status', '--no-such-option'] },
    { name: 'help', argv: ['--help'] },
    { name: 'help of a command group', argv: ['phase', '--help'] },
    { name: 'unknown command', argv: ['phsae', 'start', 'design'] },
  ];
}

function section(title: string, o: Output, ws: string): string {
  return [
    `--- ${title}: exit ${o.code}`,
    '--- stdout',
    normalise(o.stdout, { ws }),
    '--- stderr',
    normalise(o.stderr, { ws }),
  ].join('\n');
}

describe('golden: what a user sees stays the same', () => {
  it('CLI human and --json output, and the exported foreign files', async () => {
    const human = workspace('human');
    const json = workspace('json');
    const out: string[] = [];
    let i = 0;
    for (const step of steps()) {
      const at = T0 + 60_000 * i++;
      step.before?.(human);
      step.before?.(json);
      const h = await cli(human, step.argv, at);
      const j = await cli(json, [...step.argv, '--json'], at);
      out.push(
        `=== ${step.name}: baton ${step.argv.join(' ')}`,
        section('human', h, human),
        section('--json', j, json),
        '',
      );
    }
    compareGolden(path.join(HERE, 'cli.golden.txt'), out.join('\n'));
    for (const f of FORMATS) {
      compareGolden(
        path.join(HERE, 'exports', `${f}.golden.txt`),
        treeText(path.join(human, 'exports', f), { ws: human }),
      );
      // The same session exported by the --json run writes the same files.
      expect(treeText(path.join(json, 'exports', f), { ws: json })).toBe(
        treeText(path.join(human, 'exports', f), { ws: human }),
      );
    }
    // Derived files: the handoff document and the mirror, rewritten after every change.
    compareGolden(
      path.join(HERE, 'handoff.golden.txt'),
      treeText(path.join(human, '.baton', 'sessions', 'golden'), { ws: human, only: /handoff/ }),
    );
    compareGolden(
      path.join(HERE, 'exports', 'mirror-bmit.golden.txt'),
      treeText(path.join(human, 'mirror'), { ws: human }),
    );
    expect(treeText(path.join(json, 'mirror'), { ws: json })).toBe(treeText(path.join(human, 'mirror'), { ws: human }));
  });

  it('MCP tool results', async () => {
    const ws = workspace('mcp');
    const text = await mcpSession(ws, T0, async (call) => {
      await call('session_status', {});
      await call('session_start', {
        title: 'Golden workflow',
        id: 'golden',
        phases: [
          { id: 'design', name: 'Design' },
          { id: 'build', name: 'Build', blockedBy: ['design'] },
        ],
        budget: 100000,
      });
      await call('session_status', {});
      await call('session_list', {});
      await call('phase_start', { phase: 'design' });
      await call('substep_reach', { phase: 'design', name: 'draft the API' });
      await call('file_record', { action: 'created', paths: ['src/a.ts'] });
      await call('error_add', { phase: 'design', type: 'build', message: 'tsc failed' });
      await call('error_resolve', { errorId: 'err-1', resolution: 'fixed the types' });
      await call('tokens_add', { phase: 'design', input: 1200, output: 300 });
      await call('decision_add', {
        title: 'Storage',
        choice: 'file store',
        rationale: 'no server',
        alternatives: ['postgres'],
      });
      await call('finding_add', { text: 'list is slow', severity: 'medium' });
      await call('finding_remove', { findingId: 'fnd-1' });
      await call('note_add', { text: 'keep the API small' });
      await call('milestone_add', { title: 'MVP' });
      await call('milestone_done', { milestone: 'ms-1' });
      await call('artifact_add', { path: 'docs/spec.md', kind: 'doc' });
      await call('context_set', { summary: 'Design is done; build next.' });
      await call('phase_complete', { phase: 'design' });
      await call('phase_start', { phase: 'build' });
      await call('phase_fail', { phase: 'build', reason: 'tests red' });
      await call('phase_retry', { phase: 'build' });
      await call('checkpoint_create', { name: 'before refactor' });
      await call('checkpoint_list', {});
      await call('checkpoint_restore', { checkpoint: 'cp-2-before-refactor' });
      await call('session_pause', { reason: 'lunch' });
      await call('resume_plan', {});
      await call('session_resume', {});
      await call('session_status', { session: 'no-such-session' });
      await call('tokens_add', { input: -1, output: 1 });
      await call('session_start', { title: 'Second', switch: 'yes' });
      await call('phase_complete', { phase: 'design' });
    });
    compareGolden(path.join(HERE, 'mcp.golden.txt'), text);
    // The handoff document the server keeps written after each change.
    compareGolden(
      path.join(HERE, 'mcp-handoff.golden.txt'),
      treeText(path.join(ws, '.baton', 'sessions', 'golden'), { ws, times: true, only: /handoff/ }),
    );
  });
});
