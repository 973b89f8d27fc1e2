/**
 * Counting responses once (domain): the largest counts of a streamed response, growth since
 * an earlier read, and the ledger of counted responses (a later line for a key supersedes an
 * earlier one; a key that ends another key is not confused with it).
 */
import { describe, expect, it } from 'vitest';
import { countResponses, decodeLedger, encodeLedger, ledgerLookup } from '../../src/domain/agents/ingest.js';
import type { UsageTuple } from '../../src/domain/agents/transcript-usage.js';

describe('countResponses', () => {
  it('keeps the largest of each field of a response, and records only growth past what was counted', () => {
    const r = countResponses(
      [
        { key: 'a', model: 'm', usage: [10, 1, 0, 0] },
        { key: 'a', model: null, usage: [10, 7, 3, 0] },
        { key: 'a', model: 'm', usage: [10, 4, 0, 0] },
        { key: 'b', model: 'n', usage: [5, 5, 5, 5] },
        { key: 'c', model: 'n', usage: [1, 1, 0, 0] },
      ],
      new Map<string, UsageTuple>([
        ['b', [5, 2, 5, 5]],
        ['c', [1, 1, 0, 0]],
      ]),
    );
    expect(r.newResponses).toBe(1);
    expect([...r.responses]).toEqual([
      ['a', [10, 7, 3, 0]],
      ['b', [5, 5, 5, 5]],
    ]);
    expect([...r.byModel]).toEqual([
      ['m', [10, 7, 3, 0]],
      ['n', [0, 3, 0, 0]],
    ]);
  });
});

describe('the ledger of counted responses', () => {
  const text =
    encodeLedger(
      new Map<string, UsageTuple>([
        ['claude:msg_1', [1, 1, 1, 1]],
        ['xclaude:msg_2', [9, 9, 9, 9]],
      ]),
    ) +
    encodeLedger(
      new Map<string, UsageTuple>([
        ['claude:msg_1', [1, 5, 1, 1]],
        ['claude:msg_2', [2, 2, 2, 2]],
      ]),
    );

  it('a later line supersedes an earlier one, whole or searched per key', () => {
    expect(decodeLedger(text).get('claude:msg_1')).toEqual([1, 5, 1, 1]);
    expect(ledgerLookup(text, new Set(['claude:msg_1', 'claude:msg_2', 'claude:msg_3']))).toEqual(
      new Map([
        ['claude:msg_1', [1, 5, 1, 1]],
        ['claude:msg_2', [2, 2, 2, 2]],
      ]),
    );
    // "msg_2" also ends "xclaude:msg_2": only a whole key at the start of a line matches.
    expect(
      ledgerLookup(
        text
          .split('\n')
          .filter((l) => !l.startsWith('claude:msg_2'))
          .join('\n'),
        new Set(['claude:msg_2']),
      ).size,
    ).toBe(0);
  });

  it('many keys at once give what the whole decoded ledger gives', () => {
    const keys = new Set(Array.from({ length: 100 }, (_, i) => `claude:msg_${i}`));
    expect(ledgerLookup(text, keys).get('claude:msg_1')).toEqual([1, 5, 1, 1]);
    expect(ledgerLookup(text, keys).get('claude:msg_2')).toEqual([2, 2, 2, 2]);
  });
});
