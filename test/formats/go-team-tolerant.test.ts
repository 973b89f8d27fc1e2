/**
 * The go-team reader is lenient and safe: CRLF, a BOM, truncated or empty files, garbage
 * registries and links leading outside PATH are reported, never thrown or followed; the
 * canonical checksum ignores whitespace only; inspect changes no byte and no mtime.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { checkpointChecksum, verifyChecksum } from '../../src/formats/go-team/checksum.js';
import { parseCheckpointId } from '../../src/formats/go-team/steps.js';
import {
  cleanTemps,
  codes,
  copyCase,
  facts,
  FIXTURES,
  inspectAt,
  inspectCase,
  rewriteJson,
  session,
  snapshot,
  tempDir,
  unitStatuses,
} from './go-team-helpers.js';

afterEach(cleanTemps);

describe('go-team: checkpoint ids and checksum', () => {
  it('matches checkpoints to steps by their cp-NN prefix, whatever the rest of the id', () => {
    expect(parseCheckpointId('cp-03-architecture')).toEqual({ step: 3, subStep: null, iteration: false });
    expect(parseCheckpointId('cp-04-implementation-20251228-214500')).toEqual({
      step: 4,
      subStep: null,
      iteration: false,
    });
    expect(parseCheckpointId('cp-05b-security')).toEqual({ step: 5, subStep: '5b', iteration: false });
    expect(parseCheckpointId('cp-06-review-2')).toEqual({ step: 6, subStep: 'review-2', iteration: true });
    expect(parseCheckpointId('cp-06-review-final')).toEqual({ step: 6, subStep: 'review-final', iteration: false });
    expect(parseCheckpointId('cp-06-review-20251228-214500')).toEqual({ step: 6, subStep: null, iteration: false });
    expect(parseCheckpointId('cp-09-synthesis-final')).toEqual({ step: 9, subStep: null, iteration: false });
    expect(parseCheckpointId('cp-4-1735422300')).toEqual({ step: 4, subStep: null, iteration: false });
    expect(parseCheckpointId('cp-10-x')).toBeNull();
    expect(parseCheckpointId('state')).toBeNull();
  });

  it('hashes the JSON without its checksum field: whitespace does not matter, a changed value does', () => {
    const file = path.join(FIXTURES, 'completed/checkpoints/session-c0111e7e/cp-03-architecture-20251228-211000.json');
    const doc = JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, unknown>;
    expect(doc.checksum).toBe(checkpointChecksum(doc));
    expect(verifyChecksum(JSON.parse(JSON.stringify(doc))).result).toBe('ok');
    // A digest matching no canonical form is a mismatch (damage, issue 27); a value that is
    // no digest (a placeholder, a number) cannot be checked: unverified.
    expect(verifyChecksum({ ...doc, step_name: 'other' }).result).toBe('mismatch');
    expect(verifyChecksum({ ...doc, checksum: 42 }).result).toBe('unverified');
    expect(verifyChecksum({ ...doc, checksum: 'sha256:abc123def456' }).result).toBe('unverified');
    expect(verifyChecksum({ ...doc, checksum: `sha256:${'0'.repeat(64)}` }).result).toBe('unverified');
    // The digest without its `sha256:` prefix, or in capitals, is the same digest.
    expect(verifyChecksum({ ...doc, checksum: String(doc.checksum).slice(7).toUpperCase() }).result).toBe('ok');
    const { checksum: _c, ...noSum } = doc;
    expect(verifyChecksum(noSum).result).toBe('missing');
    expect(checkpointChecksum(doc)).toMatch(/^sha256:[0-9a-f]{64}$/);
  });

  it('accepts a checkpoint without checksum as unverified (MISSING_FIELD info) and rejects a tampered one', async () => {
    const d = copyCase('stale-active');
    const dir = path.join(d, 'checkpoints/session-5ta1e000');
    const f2 = path.join(dir, 'cp-02-requirements-20251228-210500.json');
    const doc = JSON.parse(fs.readFileSync(f2, 'utf8'));
    delete doc.checksum;
    fs.writeFileSync(f2, JSON.stringify(doc));
    const f3 = path.join(dir, 'cp-03-architecture-20251228-211000.json');
    fs.writeFileSync(
      f3,
      fs.readFileSync(f3, 'utf8').replace('"step_name": "architecture"', '"step_name": "architecturE"'),
    );
    const s = session(await inspectAt(d), 'session-5ta1e000');
    expect(s.checkpoints.map((c) => c.valid)).toEqual([true, true, false, true]);
    const info = s.problems.find((p) => p.code === 'MISSING_FIELD');
    expect(info?.severity).toBe('info');
    expect(info?.details).toEqual({ field: 'checksum', assumed: 'unverified' });
    expect(s.problems.find((p) => p.code === 'CORRUPT_CHECKPOINT')?.details?.fallback).toBe(
      'cp-02-requirements-20251228-210500',
    );
  });

  it('rejects a checkpoint of the wrong shape (step_number against its id, foreign session_id, no state)', async () => {
    const d = copyCase('stale-active');
    const f = path.join(d, 'checkpoints/session-5ta1e000/cp-04-implementation-20251228-211500.json');
    const doc = JSON.parse(fs.readFileSync(f, 'utf8'));
    doc.step_number = 7;
    doc.session_id = 'session-other';
    delete doc.state;
    doc.checksum = checkpointChecksum(doc); // a correct checksum does not save a wrong shape
    fs.writeFileSync(f, JSON.stringify(doc, null, 2));
    const s = session(await inspectAt(d), 'session-5ta1e000');
    const p = s.problems.find((x) => x.code === 'CORRUPT_CHECKPOINT');
    expect(p?.details?.reason).toBe(
      'has a wrong shape (step_number 7 does not match its id (step 4); session_id "session-other" is not session-5ta1e000; no state; step_number 7 contradicts manifest.json (step 4))',
    );
    expect(p?.details?.fallback).toBe('cp-03-architecture-20251228-211000');
    expect(s.resume.options[0]?.target).toBe('cp-03-architecture-20251228-211000');
  });

  it('reports a checkpoint marked valid: false without a rollback as corrupt', async () => {
    const d = copyCase('stale-active');
    const m = path.join(d, 'checkpoints/session-5ta1e000/manifest.json');
    const doc = JSON.parse(fs.readFileSync(m, 'utf8'));
    doc.checkpoints[3].valid = false;
    fs.writeFileSync(m, JSON.stringify(doc, null, 2));
    const s = session(await inspectAt(d), 'session-5ta1e000');
    expect(s.problems.find((x) => x.code === 'CORRUPT_CHECKPOINT')?.details).toMatchObject({
      checkpoint: 'cp-04-implementation-20251228-211500',
      reason: 'is marked invalid (valid: false)',
      fallback: 'cp-03-architecture-20251228-211000',
    });
  });
});

describe('go-team: encodings and damaged files', () => {
  it('reads CRLF files with a UTF-8 BOM exactly like the originals (checksums still valid)', async () => {
    for (const c of ['stale-active', 'interrupted-boolean', 'rolled-back', 'completed']) {
      const d = copyCase(c);
      rewriteJson(d, (t) => `\uFEFF${t.replace(/\n/g, '\r\n')}`);
      const a = await inspectCase(c);
      const b = await inspectAt(d);
      expect(b.sessions.map(facts)).toEqual(a.sessions.map(facts));
      expect(b.sessions.map((s) => codes(s.problems))).toEqual(a.sessions.map((s) => codes(s.problems)));
      expect(
        b.sessions
          .flatMap((s) => s.checkpoints)
          .every((cp, i) => cp.valid === a.sessions.flatMap((s) => s.checkpoints)[i]?.valid),
      ).toBe(true);
    }
  });

  it('reports a truncated state.json, drops the live option, and still reads the checkpoints', async () => {
    const d = copyCase('stale-active');
    const f = path.join(d, 'checkpoints/session-5ta1e000/state.json');
    const t = fs.readFileSync(f, 'utf8');
    fs.writeFileSync(f, t.slice(0, Math.floor(t.length / 2)));
    const s = session(await inspectAt(d), 'session-5ta1e000');
    const p = s.problems.find((x) => x.code === 'CORRUPT_FILE');
    expect(p?.path).toBe('checkpoints/session-5ta1e000/state.json');
    expect(s.status).toBe('interrupted'); // the registry's updated_at is stale too
    expect(s.resume.options.map((o) => o.kind)).toEqual(['checkpoint', 'fresh']);
    expect(s.resume.options[0]?.loses).toBe('all work done after cp-04-implementation-20251228-211500');
    expect(unitStatuses(s)).toBe(
      '1:completed 2:completed 3:completed 4:completed 5:pending 6:pending 7:pending 8:pending 9:pending',
    );
  });

  it('reports an empty manifest.json (EMPTY_FILE) and finds the checkpoints from their files', async () => {
    const d = copyCase('stale-active');
    fs.writeFileSync(path.join(d, 'checkpoints/session-5ta1e000/manifest.json'), '');
    const s = session(await inspectAt(d), 'session-5ta1e000');
    expect(s.problems.find((x) => x.code === 'EMPTY_FILE')?.path).toBe('checkpoints/session-5ta1e000/manifest.json');
    expect(s.checkpoints.map((c) => c.id)).toEqual([
      'cp-01-init-20251228-210000',
      'cp-02-requirements-20251228-210500',
      'cp-03-architecture-20251228-211000',
      'cp-04-implementation-20251228-211500',
    ]);
  });

  it('reads the sessions from their folders when sessions.json is truncated', async () => {
    const d = copyCase('interrupted-boolean');
    const f = path.join(d, 'checkpoints/sessions.json');
    fs.writeFileSync(f, fs.readFileSync(f, 'utf8').slice(0, 200));
    const r = await inspectAt(d);
    expect(codes(r.problems)).toEqual(['CORRUPT_FILE']);
    expect(r.problems[0]?.path).toBe('checkpoints/sessions.json');
    expect(r.sessions.map((s) => s.id).sort()).toEqual(['session-9a05ed00', 'session-abad0000', 'session-b0013a00']);
    const s = session(r, 'session-b0013a00');
    expect(s.rawStatus).toBeNull();
    expect(s.status).toBe('interrupted');
    expect(s.position.unitId).toBe('6');
  });

  it('reports a missing registry (MISSING_FILE) and still reads the folders', async () => {
    const d = copyCase('failed');
    fs.rmSync(path.join(d, 'checkpoints/sessions.json'));
    const r = await inspectAt(d);
    expect(codes(r.problems)).toEqual(['MISSING_FILE']);
    expect(r.sessions.map((s) => s.id)).toEqual(['session-fa11ed00']);
  });

  it('survives a registry of garbage: non-array sessions, entries without id, duplicate ids, unknown status', async () => {
    const d = copyCase('failed');
    const f = path.join(d, 'checkpoints/sessions.json');
    fs.writeFileSync(f, JSON.stringify({ sessions: 'nope' }));
    let r = await inspectAt(d);
    expect(codes(r.problems)).toEqual(['BAD_VALUE', 'MISSING_FIELD', 'ORPHAN_SESSION']); // the registry lists nothing, so the folder is unlisted
    fs.writeFileSync(
      f,
      JSON.stringify({
        version: '1.0.0',
        sessions: [42, { topic: 'no id' }, { id: 'session-fa11ed00', status: 'exploded' }, { id: 'session-fa11ed00' }],
        last_active_session: 7,
      }),
    );
    r = await inspectAt(d);
    expect(codes(r.problems)).toEqual(['BAD_VALUE', 'BAD_VALUE', 'BAD_VALUE', 'DANGLING_ACTIVE']); // last_active_session 7 names nothing
    const s = session(r, 'session-fa11ed00');
    expect(s.status).toBe('interrupted');
    expect(s.problems.find((p) => p.code === 'BAD_VALUE')?.details).toEqual({ field: 'status', value: 'exploded' });
    fs.writeFileSync(f, '[1,2,3]');
    r = await inspectAt(d);
    expect(codes(r.problems)).toEqual(['CORRUPT_FILE']);
  });

  it('reports an active session without any timestamp as stale', async () => {
    const d = copyCase('two-active');
    const f = path.join(d, 'checkpoints/sessions.json');
    const reg = JSON.parse(fs.readFileSync(f, 'utf8'));
    delete reg.sessions[0].updated_at;
    fs.writeFileSync(f, JSON.stringify(reg));
    const st = path.join(d, 'checkpoints/session-a0000001/state.json');
    const live = JSON.parse(fs.readFileSync(st, 'utf8'));
    delete live.saved_at;
    fs.writeFileSync(st, JSON.stringify(live));
    const s = session(await inspectAt(d), 'session-a0000001');
    expect(s.status).toBe('interrupted');
    expect(s.problems.find((p) => p.code === 'STALE_ACTIVE')?.details).toEqual({
      lastHeartbeat: null,
      ageSeconds: null,
      limitSeconds: 60,
    });
  });
});

describe('go-team: paths stay inside PATH', () => {
  it('reports a session folder that is a link outside PATH and does not read through it', async () => {
    const d = copyCase('interrupted-boolean');
    const outside = tempDir('baton-goteam-outside-');
    fs.renameSync(path.join(d, 'checkpoints/session-9a05ed00'), path.join(outside, 'session-9a05ed00'));
    fs.symlinkSync(path.join(outside, 'session-9a05ed00'), path.join(d, 'checkpoints/session-9a05ed00'));
    const r = await inspectAt(d);
    expect(r.problems.filter((p) => p.code === 'UNSAFE_PATH').map((p) => p.path)).toEqual([
      'checkpoints/session-9a05ed00',
    ]);
    const s = session(r, 'session-9a05ed00');
    expect(s.sources).toEqual(['checkpoints/sessions.json']);
    expect(s.checkpoints).toEqual([]);
    expect(codes(s.problems)).toContain('UNSAFE_PATH');
  });

  it('follows a session folder linked inside PATH', async () => {
    const d = copyCase('failed');
    fs.renameSync(path.join(d, 'checkpoints/session-fa11ed00'), path.join(d, 'real-folder'));
    fs.symlinkSync(path.join(d, 'real-folder'), path.join(d, 'checkpoints/session-fa11ed00'));
    const s = session(await inspectAt(d), 'session-fa11ed00');
    expect(s.problems).toEqual([]);
    expect(s.checkpoints).toHaveLength(5);
  });

  it('reports a checkpoint file linked outside PATH, a registry id with "..", and project file paths leaving the project', async () => {
    const d = copyCase('stale-active');
    const outside = tempDir('baton-goteam-outside-');
    const cpf = path.join(d, 'checkpoints/session-5ta1e000/cp-04-implementation-20251228-211500.json');
    fs.renameSync(cpf, path.join(outside, 'cp.json'));
    fs.symlinkSync(path.join(outside, 'cp.json'), cpf);
    const f3 = path.join(d, 'checkpoints/session-5ta1e000/cp-03-architecture-20251228-211000.json');
    const doc = JSON.parse(fs.readFileSync(f3, 'utf8'));
    doc.files.created = ['ok.go', '../../etc/passwd', '/abs/path.go'];
    doc.checksum = checkpointChecksum(doc);
    fs.writeFileSync(f3, JSON.stringify(doc));
    const reg = path.join(d, 'checkpoints/sessions.json');
    const r0 = JSON.parse(fs.readFileSync(reg, 'utf8'));
    r0.sessions.push({ id: '../escape', status: 'paused', current_step: 2 });
    fs.writeFileSync(reg, JSON.stringify(r0));
    const r = await inspectAt(d);
    const s = session(r, 'session-5ta1e000');
    const unsafe = s.problems.filter((p) => p.code === 'UNSAFE_PATH');
    expect(unsafe.map((p) => p.path ?? p.details?.file)).toEqual([
      'checkpoints/session-5ta1e000/cp-04-implementation-20251228-211500.json',
      'checkpoints/session-5ta1e000/cp-03-architecture-20251228-211000.json',
      'checkpoints/session-5ta1e000/cp-03-architecture-20251228-211000.json',
    ]);
    expect(unsafe.slice(1).map((p) => p.details?.file)).toEqual(['../../etc/passwd', '/abs/path.go']);
    expect(s.units[2]?.files).toEqual([{ path: 'ok.go', action: 'created' }]);
    expect(s.checkpoints.find((c) => c.id.startsWith('cp-04'))?.valid).toBe(false);
    expect(s.sources.some((p) => p.includes('cp-04'))).toBe(false);
    const esc = session(r, '../escape');
    expect(codes(esc.problems)).toEqual(['UNSAFE_PATH']);
    expect(esc.sources).toEqual(['checkpoints/sessions.json']);
  });
});

describe('go-team: inspect is read-only', () => {
  it('leaves every byte and mtime of every fixture unchanged', async () => {
    for (const c of fs.readdirSync(FIXTURES).filter((n) => fs.statSync(path.join(FIXTURES, n)).isDirectory())) {
      const d = copyCase(c);
      const before = snapshot(d);
      await inspectAt(d, new Date());
      expect(snapshot(d)).toEqual(before);
    }
  });
});

describe('go-team: source hash', () => {
  it("changes when the session's own files change, not when another session's registry entry does", async () => {
    const d = copyCase('interrupted-boolean');
    const h = async () => Object.fromEntries((await inspectAt(d)).sessions.map((s) => [s.id, s.sourceHash]));
    const h0 = await h();
    const regPath = path.join(d, 'checkpoints/sessions.json');
    const reg = JSON.parse(fs.readFileSync(regPath, 'utf8'));
    reg.sessions[1].updated_at = '2025-12-28T21:11:00Z';
    fs.writeFileSync(regPath, JSON.stringify(reg, null, 2));
    const h1 = await h();
    expect(h1['session-b0013a00']).toBe(h0['session-b0013a00']);
    expect(h1['session-abad0000']).toBe(h0['session-abad0000']);
    expect(h1['session-9a05ed00']).not.toBe(h0['session-9a05ed00']);
    fs.appendFileSync(path.join(d, 'checkpoints/session-b0013a00/state.json'), '\n');
    expect((await h())['session-b0013a00']).not.toBe(h0['session-b0013a00']);
  });
});

describe('go-team: steps without checkpoint', () => {
  it('warns (PREREQUISITE) about a step before the current one that has no checkpoint while later ones do', async () => {
    const d = copyCase('stale-active');
    const sdir = path.join(d, 'checkpoints/session-5ta1e000');
    fs.rmSync(path.join(sdir, 'cp-02-requirements-20251228-210500.json'));
    const m = JSON.parse(fs.readFileSync(path.join(sdir, 'manifest.json'), 'utf8'));
    m.checkpoints.splice(1, 1);
    fs.writeFileSync(path.join(sdir, 'manifest.json'), JSON.stringify(m, null, 2));
    const s = session(await inspectAt(d), 'session-5ta1e000');
    const p = s.problems.filter((x) => x.code === 'PREREQUISITE');
    expect(p.map((x) => x.details)).toEqual([{ step: 2, currentStep: 4 }]);
    expect(s.units[1]?.status).toBe('completed');
    expect(s.units[1]?.completedAt).toBeNull();
  });
});
