import fs from 'node:fs';
import path from 'node:path';
import type { RepairReport } from '../types.js';
import { FILE_MODE, atomicWrite } from '../atomic-write.js';
import { EVENT_FORMAT_VERSION } from './append.js';
import type { Writer } from './append.js';
import { decodeRecord, encodeRecord } from './codec.js';
import { lossStart, scanJournal } from './journal.js';
import { readableSnapshots } from './loss.js';
import type { Proof } from '../errors.js';
import type { Handle } from './handle.js';

/**
 * `baton repair` of a file-store journal whose inner lines are damaged: the original is kept
 * as `journal.jsonl.corrupt-<time>`, the journal is rebuilt with every readable event and
 * each unreadable line as a `repair.unreadable_line` event, and the snapshots (which no longer
 * match) are removed. Caller holds the session lock and drops its handle after a rewrite.
 * Returns no report when the journal is sound.
 */
export function repairJournal(w: Writer, id: string, h: Handle): RepairReport[] {
  const buf = fs.readFileSync(h.journal);
  const scan = scanJournal(buf, 0, 1);
  if (!scan.bad.length && scan.tornAt === null) return [];
  const stamp = w.now().toISOString().replace(/[:.]/g, '-');
  const savedTo = `${h.journal}.corrupt-${stamp}`;
  fs.writeFileSync(savedTo, buf, { mode: FILE_MODE });
  const { text, unreadable } = rebuild(w, buf, scan.tornAt !== null, path.basename(savedTo));
  atomicWrite(h.journal, text);
  // The journal file was replaced: drop the now-mismatched snapshots.
  for (const f of [h.snapshotFile, `${h.snapshotFile}.bak`]) fs.rmSync(f, { force: true });
  return [
    {
      sessionId: id,
      kind: 'journal_rewritten',
      message: `Session ${id}: journal rebuilt; ${unreadable.length} unreadable line(s) kept as repair events; the original is in ${path.basename(savedTo)}.`,
      savedTo,
    },
  ];
}

/*
 * Rebuild: every readable event keeps its seq. Each unreadable line becomes a repair event
 * carrying its raw text, at the seq of an event missing before the next readable one (a
 * damaged line stands for the event it held). Missing seqs with no damaged line to fill
 * them (lines deleted by hand, two lines run together) get an empty repair event, and
 * damaged lines with no missing seq to take (duplicates, inserted junk) go after the last
 * event, so seq stays contiguous, no readable event moves and no byte is dropped.
 */
function rebuild(w: Writer, buf: Buffer, torn: boolean, savedName: string): { text: string; unreadable: number[] } {
  const lines = splitLines(buf);
  const out: string[] = [];
  let seq = 0;
  const unreadable: number[] = [];
  const time = w.now().toISOString();
  const pending: Array<{ raw: string; line: number }> = [];
  const unreadableEvent = (raw: string, line: number): void => {
    seq += 1;
    unreadable.push(line);
    out.push(
      encodeRecord({
        v: EVENT_FORMAT_VERSION,
        seq,
        type: 'repair.unreadable_line',
        time,
        actor: w.actor,
        data: { raw: raw.slice(0, 1_000_000), line },
      }),
    );
  };
  lines.forEach((raw, i) => {
    if (raw.trim() === '') return;
    const isLast = i === lines.length - 1;
    if (isLast && torn) return; // torn tail: cut, its bytes are in the saved copy
    const d = decodeRecord(raw);
    const at = d.ok ? d.value['seq'] : undefined;
    const readable =
      d.ok && typeof d.value['type'] === 'string' && typeof at === 'number' && Number.isInteger(at) && at > seq;
    if (!readable) {
      pending.push({ raw, line: i + 1 });
      return;
    }
    // Seqs a `repair.events_lost` stands for were lost, not damaged: nothing fills them.
    const lossFrom = d.ok ? lossStart(d.value) : null;
    if (lossFrom !== null && lossFrom > seq) {
      while (seq + 1 < lossFrom) {
        const p = pending.shift();
        unreadableEvent(p?.raw ?? '', p?.line ?? i + 1);
      }
      out.push(raw);
      seq = at as number;
      return;
    }
    while (seq + 1 < (at as number)) {
      const p = pending.shift();
      if (p) unreadableEvent(p.raw, p.line);
      else unreadableEvent('', i + 1);
    }
    out.push(raw);
    seq = at as number;
  });
  for (const p of pending) unreadableEvent(p.raw, p.line);
  seq += 1;
  out.push(
    encodeRecord({
      v: EVENT_FORMAT_VERSION,
      seq,
      type: 'repair.journal',
      time,
      actor: w.actor,
      data: { savedTo: savedName, unreadableLines: unreadable },
    }),
  );
  return { text: `${out.join('\n')}\n`, unreadable };
}

function splitLines(buf: Buffer): string[] {
  const text = buf.toString('utf8');
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
}

/**
 * Recovery of a journal that lost acknowledged events (`proof` names a revision past its
 * end): the original is kept as `journal.jsonl.corrupt-<time>`, the journal keeps its events
 * up to the end it still has (a torn fragment after them is cut, its bytes in the saved copy)
 * and gains one `repair.events_lost` event at seq `proof.revision + 1`, which names the lost
 * seqs and carries the state of the newest valid snapshot past the journal's end. Numbering
 * goes on above every seq ever acknowledged. The snapshots are removed (the journal file is
 * new). Caller holds the session lock and drops its handle afterwards.
 */
export function recoverLostEvents(w: Writer, id: string, h: Handle, proof: Proof): RepairReport {
  const buf = fs.readFileSync(h.journal);
  const scan = scanJournal(buf, 0, 1);
  const last = scan.maxSeq;
  const stamp = w.now().toISOString().replace(/[:.]/g, '-');
  const savedTo = `${h.journal}.corrupt-${stamp}`;
  fs.writeFileSync(savedTo, buf, { mode: FILE_MODE });
  const snap =
    readableSnapshots(id, h.snapshotFile).find((s) => s.revision > last && s.revision <= proof.revision) ?? null;
  const event = {
    v: EVENT_FORMAT_VERSION,
    seq: proof.revision + 1,
    type: 'repair.events_lost',
    time: w.now().toISOString(),
    actor: w.actor,
    data: {
      from: last + 1,
      to: proof.revision,
      recoveredFrom: snap ? { kind: 'snapshot', revision: snap.revision } : null,
      state: snap ? snap.state : null,
      savedTo: path.basename(savedTo),
    },
  };
  // Every complete line stays (damaged inner lines are the rebuild's to handle); a torn end goes.
  const kept = buf.subarray(0, scan.tornAt ?? buf.length).toString('utf8');
  atomicWrite(h.journal, `${kept}${kept === '' || kept.endsWith('\n') ? '' : '\n'}${encodeRecord(event)}\n`);
  for (const f of [h.snapshotFile, `${h.snapshotFile}.bak`]) fs.rmSync(f, { force: true });
  const lost = last + 1 === proof.revision ? `seq ${proof.revision}` : `seqs ${last + 1}–${proof.revision}`;
  return {
    sessionId: id,
    kind: 'events_lost',
    message: `Session ${id}: acknowledged ${lost} were lost (${proof.by} proves revision ${proof.revision}); ${snap ? `the state was recovered from the snapshot at revision ${snap.revision}` : "no snapshot past the journal was left, the state is the journal's"}, recorded as a repair.events_lost event at seq ${proof.revision + 1}; the original is in ${path.basename(savedTo)}.`,
    savedTo,
  };
}
