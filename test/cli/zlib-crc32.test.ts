/**
 * The commands' bundles checksum journal records with src/cli/zlib-crc32.ts instead of
 * node:zlib (scripts/build.mjs): it must give node:zlib's crc32 for every input, in
 * JavaScript at first and natively past its budget.
 */
import { crc32 as zlibCrc32 } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { crc32 } from '../../src/cli/zlib-crc32.js';

describe('crc32 without node:zlib', () => {
  it('equals node:zlib crc32 for strings (UTF-8), bytes and running values, before and after the switch to native', () => {
    const samples: Array<string | Uint8Array> = [
      '',
      '{}',
      'abc',
      'é✓ 🎉 \u0000 \uFFFD',
      '{"v":1,"seq":3,"type":"tokens.recorded"}',
      Buffer.from([0, 255, 128, 7]),
      new Uint8Array(1000).fill(0xa5),
    ];
    let text = '';
    for (let i = 0; i < 5000; i++) text += String.fromCharCode(32 + ((i * 7919) % 95)) + (i % 97 === 0 ? 'ü' : '');
    samples.push(text);
    // 400 rounds of ≈ 14 KB each run past the budget (64 KB) of the JavaScript path.
    for (let round = 0; round < 400; round++) {
      for (const s of samples) {
        expect(crc32(s)).toBe(zlibCrc32(s));
        expect(crc32(s, 0x1234abcd)).toBe(zlibCrc32(s, 0x1234abcd));
      }
    }
  });
});
