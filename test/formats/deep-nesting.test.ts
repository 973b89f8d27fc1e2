/**
 * A foreign file nested thousands of levels deep is damage, not a session: every reader
 * reports it as CORRUPT_FILE (naming the depth limit) instead of crashing later when the
 * report or the imported events are serialized.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { bmadAdapter } from '../../src/formats/bmad/index.js';
import { bmitAdapter } from '../../src/formats/bmit/index.js';
import { maestroAdapter } from '../../src/formats/maestro/index.js';
import type { FormatAdapter } from '../../src/formats/types.js';
import { MAX_DOCUMENT_DEPTH } from '../../src/formats/util.js';
import { inspectFolder } from '../../src/manager/toolkits/formats.js';
import { cleanTemps, FIXTURES, inspectAt, tempDir } from './bmit-helpers.js';
import { clockedManager } from './core-helpers.js';

afterEach(cleanTemps);

const DEPTH = 5000;
const deepJson = `${'{"a":'.repeat(DEPTH)}1${'}'.repeat(DEPTH)}`;
const deepYamlFlow = `${'['.repeat(DEPTH)}${']'.repeat(DEPTH)}`;
function deepYamlBlock(levels: number): string {
  let s = '';
  for (let i = 0; i < levels; i++) s += `${' '.repeat(i)}k${i}:\n`;
  return `${s}${' '.repeat(levels)}x: 1\n`;
}

async function put(root: string, rel: string, content: string): Promise<void> {
  await fs.mkdir(path.dirname(path.join(root, rel)), { recursive: true });
  await fs.writeFile(path.join(root, rel), content);
}

/** Inspect through the adapter, then through the CLI's path (JSON report) and import: none may throw. */
async function expectReported(adapter: FormatAdapter, dir: string, file: string): Promise<void> {
  const r = await inspectAt(adapter, dir);
  const all = [...r.problems, ...r.sessions.flatMap((s) => s.problems)];
  const p = all.find((x) => x.path === file && x.code === 'CORRUPT_FILE');
  expect(p, JSON.stringify(all.map((x) => `${x.code}@${x.path}`))).toBeDefined();
  expect(p!.message).toContain(`more than ${MAX_DOCUMENT_DEPTH} levels deep`);
  expect(() => JSON.stringify(r)).not.toThrow();
  const via = await inspectFolder(dir, adapter.name, { cwd: dir });
  expect(() => JSON.stringify(via)).not.toThrow();
  await expect(clockedManager().formats.import(dir, adapter.name, { cwd: dir })).resolves.toBeDefined();
}

describe('documents nested too deep are CORRUPT_FILE, never a crash', () => {
  const phaseJson = (inner: string) =>
    `---\n{\n  "session_id": "deep", "status": "in_progress", "created": "2026-01-01T00:00:00Z", "updated": "2026-01-01T00:00:00Z",\n  "phases": [{ "id": 1, "name": "P", "status": "pending", "downstream_context": ${inner} }]\n}\n---\n# Deep Orchestration Log\n`;

  it('maestro, JSON frontmatter with a phase field nested 5,000 deep', async () => {
    const d = await tempDir('deep-maestro-json');
    await put(d, 'state/active-session.md', phaseJson(deepJson));
    await expectReported(maestroAdapter, d, 'state/active-session.md');
  });

  it('maestro, YAML frontmatter nested 5,000 deep (flow) and 300 deep (block)', async () => {
    const d = await tempDir('deep-maestro-yaml');
    const head =
      'session_id: "deep"\nstatus: "in_progress"\nphases:\n  - id: 1\n    name: "P"\n    status: "pending"\n    downstream_context: ';
    await put(d, 'state/active-session.md', `---\n${head}${deepYamlFlow}\n---\n`);
    await put(
      d,
      'state/archive/deep2.md',
      `---\nsession_id: "deep2"\nstatus: "completed"\nextra:\n${deepYamlBlock(300).trimEnd().replace(/^/gm, '  ')}\n---\n`,
    );
    await expectReported(maestroAdapter, d, 'state/active-session.md');
    await expectReported(maestroAdapter, d, 'state/archive/deep2.md');
  });

  it('a document just under the limit still reads', async () => {
    const d = await tempDir('deep-maestro-ok');
    const ok = `${'{"a":'.repeat(MAX_DOCUMENT_DEPTH - 5)}1${'}'.repeat(MAX_DOCUMENT_DEPTH - 5)}`;
    await put(d, 'state/active-session.md', phaseJson(ok));
    const r = await inspectAt(maestroAdapter, d);
    expect(r.sessions.map((s) => s.id)).toEqual(['deep']);
    expect(r.sessions[0]!.problems.filter((p) => p.code === 'CORRUPT_FILE')).toEqual([]);
  });

  it('bmit (JSON state file) nested 5,000 deep', async () => {
    const d = await tempDir('deep-bmit');
    await fs.cp(path.join(FIXTURES, 'bmit', 'mid-run'), d, { recursive: true });
    const file = 'agent-output/contoso-web/00-session-state.json';
    const doc = JSON.parse(await fs.readFile(path.join(d, file), 'utf8')) as Record<string, unknown>;
    await put(d, file, JSON.stringify({ ...doc, review_audit: '@@' }).replace('"@@"', deepJson));
    await expectReported(bmitAdapter, d, file);
  });

  it('bmad (YAML session file) nested 5,000 deep', async () => {
    const d = await tempDir('deep-bmad');
    await fs.cp(path.join(FIXTURES, 'bmad', 'active'), d, { recursive: true });
    const files = (await fs.readdir(path.join(d, '_bmad-output/sessions'))).filter(
      (f) => f.endsWith('.yaml') && f !== 'active-session.yaml',
    );
    const file = `_bmad-output/sessions/${files[0]}`;
    await fs.appendFile(path.join(d, file), `deep_field: ${deepYamlFlow}\n`);
    await expectReported(bmadAdapter, d, file);
  });
});
