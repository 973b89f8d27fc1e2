/**
 * Issue 27, Go Team checksums on the way back: checkpoints written by Python (`json.dumps`,
 * integral floats such as `0.0`, non-ASCII text) verify and are handed back byte for byte; a
 * checkpoint whose content no longer matches its sha256 digest is damaged: not the recommended
 * restore, and dropped on export with `recovery.json` and the manifest moved to the last valid
 * checkpoint. The Python files are written by python3 itself, in the test.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { exportInput, runExport } from '../../src/formats/export.js';
import { goTeamAdapter } from '../../src/formats/go-team/index.js';
import { batonIdFor, importedState } from '../../src/formats/import.js';
import { SafeDir } from '../../src/formats/safe-dir.js';
import type { ForeignSession } from '../../src/formats/types.js';
import { workspace } from '../cli/helpers.js';
import { cleanTemps, tempDir } from './bmit-helpers.js';

afterEach(cleanTemps);

const FIX = path.join(
  path.dirname(new URL(import.meta.url).pathname),
  '../fixtures/formats/go-team/corrupt-checkpoint',
);
const ID = 'session-c0aa0b70';
const SD = `checkpoints/${ID}`;
const CP3 = 'cp-03-architecture-20251228-211000';
const CP4 = 'cp-04-implementation-20251228-211500';
const NOW = new Date('2026-07-01T12:00:00.000Z');

/**
 * Rewrites a checkpoint as a Python toolkit would: floats (0.0, 100.0, 1e-05) and non-ASCII
 * text in its state, the checksum = sha256 of `json.dumps(<doc without checksum>, **dumps)`,
 * the file written with `json.dumps(doc, **write)`. `tamper`: a value changed after hashing.
 */
function pythonWrite(file: string, dumps: string, write: string, tamper = false, preset = false): void {
  const py = [
    'import hashlib, json, sys',
    'f = sys.argv[1]',
    'd = json.load(open(f, encoding="utf-8"))',
    // preset: the field is there, empty, while hashing (filled in afterwards, in place).
    preset ? 'd["checksum"] = ""' : 'd.pop("checksum", None)',
    'd["state"]["metrics"] = {"coverage": 0.0, "progress": 100.0, "drift": 1e-05, "note": "Tối ưu hoá"}',
    `body = json.dumps(d, ${dumps})`,
    'd["checksum"] = "sha256:" + hashlib.sha256(body.encode("utf-8")).hexdigest()',
    ...(tamper ? ['d["state"]["metrics"]["coverage"] = 0.5'] : []),
    `open(f, "w", encoding="utf-8").write(json.dumps(d, ${write}) + "\\n")`,
  ].join('\n');
  execFileSync('python3', ['-c', py, file]);
}

async function tree(tamper: boolean): Promise<string> {
  const d = await tempDir('gt-sum');
  fs.cpSync(FIX, d, { recursive: true });
  // Python's default dumps (sorted keys, ", " and ": "), written pretty with 2 spaces.
  pythonWrite(path.join(d, SD, `${CP3}.json`), 'sort_keys=True', 'indent=2');
  // File order, indent 4, non-ASCII kept: recovery.json names this one.
  pythonWrite(path.join(d, SD, `${CP4}.json`), 'indent=4, ensure_ascii=False', 'indent=4, ensure_ascii=False', tamper);
  return d;
}

async function session(dir: string): Promise<ForeignSession> {
  const r = await goTeamAdapter.inspect(await SafeDir.open(dir), NOW);
  return r.sessions.find((s) => s.id === ID)!;
}

async function exported(dir: string): Promise<{ out: string; r: Awaited<ReturnType<typeof runExport>> }> {
  const s = await session(dir);
  const state = importedState(s, { importedAt: NOW.toISOString(), root: '/src' }, batonIdFor(s.id));
  const out = await tempDir('gt-sum-out');
  const r = await runExport(
    goTeamAdapter,
    exportInput(state, 'go-team', NOW),
    await SafeDir.open(out, process.cwd(), { create: true }),
  );
  return { out, r };
}

const read = (dir: string, f: string) => JSON.parse(fs.readFileSync(path.join(dir, SD, f), 'utf8'));

describe('Go Team checkpoints written by Python', () => {
  it('verify (0.0 hashed as 0.0, non-ASCII as written): usable, the recommended restore', async () => {
    const d = await tree(false);
    expect(fs.readFileSync(path.join(d, SD, `${CP4}.json`), 'utf8')).toContain('"coverage": 0.0');
    const s = await session(d);
    expect(s.checkpoints.filter((c) => c.id === CP3 || c.id === CP4).map((c) => [c.id, c.valid, c.checksum])).toEqual([
      [CP3, true, 'ok'],
      [CP4, true, 'ok'],
    ]);
    expect(s.problems.filter((p) => p.code === 'CHECKSUM_UNVERIFIED' || p.details?.checkpoint === CP4)).toEqual([]);
    expect(s.resume.options[0]).toMatchObject({ kind: 'checkpoint', target: CP4, recommended: true });
  });

  it('verify whichever way json.dumps was called (separators, indent, sort_keys, ensure_ascii, the field emptied while hashing)', async () => {
    const variants: Array<[string, boolean]> = [
      ['', false],
      ['separators=(",", ":")', false],
      ['sort_keys=True, separators=(",", ":"), ensure_ascii=False', false],
      ['indent=2', false],
      ['indent=4, sort_keys=True', false],
      ['sort_keys=True', true],
    ];
    for (const [dumps, preset] of variants) {
      const d = await tree(false);
      pythonWrite(path.join(d, SD, `${CP4}.json`), dumps, 'indent=2', false, preset);
      const cp = (await session(d)).checkpoints.find((c) => c.id === CP4);
      expect([dumps, preset, cp?.valid, cp?.checksum]).toEqual([dumps, preset, true, 'ok']);
    }
  });

  it('are handed back byte for byte on export: nothing dropped, recovery.json unchanged', async () => {
    const d = await tree(false);
    const { out, r } = await exported(d);
    expect(r.problems.filter((p) => p.code === 'CORRUPT_CHECKPOINT')).toEqual([]);
    for (const cp of [CP3, CP4])
      expect(fs.readFileSync(path.join(out, SD, `${cp}.json`))).toEqual(
        fs.readFileSync(path.join(d, SD, `${cp}.json`)),
      );
    expect(read(out, 'recovery.json').recovery_options.map((o: { target: string }) => o.target)).toEqual([CP4]);
    expect(read(out, 'manifest.json').checkpoints.every((c: { valid?: boolean }) => c.valid !== false)).toBe(true);
  });
});

describe('a Go Team checkpoint that truly fails its checksum', () => {
  it('is damaged: CORRUPT_CHECKPOINT, not usable, the last valid checkpoint is the recommended restore', async () => {
    const d = await tree(true);
    const s = await session(d);
    expect(s.checkpoints.find((c) => c.id === CP4)).toMatchObject({ valid: false, checksum: 'mismatch' });
    const p = s.problems.find((x) => x.code === 'CORRUPT_CHECKPOINT' && x.details?.checkpoint === CP4);
    expect(p).toMatchObject({ severity: 'error', details: { fallback: CP3 } });
    expect(s.resume.recommended).toBe('checkpoint');
    expect(s.resume.options[0]).toMatchObject({ kind: 'checkpoint', target: CP3, recommended: true });
    expect(s.resume.options.find((o) => o.target === CP4 && o.recommended)).toBeUndefined();
  });

  it('is dropped on export; the manifest marks it invalid and recovery.json names the last valid checkpoint', async () => {
    const d = await tree(true);
    const { out, r } = await exported(d);
    expect(r.written).not.toContain(`${SD}/${CP4}.json`);
    expect(r.written).toContain(`${SD}/${CP3}.json`);
    const dropped = r.problems.find((p) => p.code === 'CORRUPT_CHECKPOINT')!;
    expect(dropped.message).toMatch(/fails its checksum: it was dropped/);
    expect(dropped.details).toMatchObject({ checkpoint: CP4, dropped: true, instead: CP3 });
    expect(read(out, 'manifest.json').checkpoints.find((c: { id: string }) => c.id === CP4).valid).toBe(false);
    expect(read(out, 'manifest.json').current_checkpoint).toBe(CP3);
    expect(read(out, 'recovery.json').recovery_options.map((o: { target: string }) => o.target)).toEqual([CP3]);
    const back = await session(out);
    expect(back.resume.options.find((o) => o.kind === 'checkpoint')?.target).toBe(CP3);
  });
});

describe('through the CLI', () => {
  it('inspect reports the damaged checkpoint; export drops it and says so; the Python-written one is kept', async () => {
    const d = await tree(true);
    const ws = workspace();
    fs.cpSync(d, ws.path('gt'), { recursive: true });
    const insp = JSON.parse((await ws.run(['inspect', '--format', 'go-team', 'gt', '--json'])).stdout) as {
      sessions: ForeignSession[];
    };
    const s = insp.sessions.find((x) => x.id === ID)!;
    expect(s.problems.filter((p) => p.code === 'CORRUPT_CHECKPOINT').map((p) => p.details?.checkpoint)).toContain(CP4);
    expect(s.resume.options[0]?.target).toBe(CP3);
    // The fixture's torn rollback-history.json makes the import report errors (exit 10): it imports all the same.
    expect((await ws.run(['import', 'gt'])).stdout).toContain(`created   ${ID}`);
    const e = await ws.run(['export', '--session', ID, '--format', 'go-team', '--out', 'out']);
    expect(e.code, e.stderr).toBe(0);
    expect(e.stderr + e.stdout).toContain(`${CP4} of session ${ID} fails its checksum: it was dropped`);
    expect(fs.existsSync(ws.path('out', SD, `${CP4}.json`))).toBe(false);
    expect(fs.readFileSync(ws.path('out', SD, `${CP3}.json`))).toEqual(
      fs.readFileSync(path.join(d, SD, `${CP3}.json`)),
    );
    expect(read(ws.path('out'), 'recovery.json').recovery_options.map((o: { target: string }) => o.target)).toEqual([
      CP3,
    ]);
  });
});
