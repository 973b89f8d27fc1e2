/*
 * node:zlib's crc32 for the bundled commands (scripts/build.mjs puts this module in place of
 * node:zlib where the file store's record codec imports it, in dist/cli.cjs and dist/hook.cjs).
 * Loading node:zlib loads node:stream with it, milliseconds of every command's start-up, while
 * a command usually checksums a few records: the journal's tail past its snapshot and the
 * records it appends. The first bytes are checksummed here, in JavaScript; past a budget (a
 * command reading a whole long journal) node:zlib's native crc32 is loaded and used. Both
 * compute the same CRC-32 (ISO-HDLC, as zlib), over the UTF-8 bytes of a string.
 */
import { createRequire } from 'node:module';

/**
 * Bytes checksummed in JavaScript before node:zlib is loaded. Measured in fresh processes,
 * loading node:zlib costs about what checksumming 40 KB costs here (≈ 200 records, as many as
 * a journal holds past its snapshot at most): past it, the native code is quicker.
 */
const JS_BUDGET_BYTES = 64 * 1024;

let table: Int32Array | null = null;
let native: ((data: string | Uint8Array, value?: number) => number) | null = null;
let budget = JS_BUDGET_BYTES;

/** The CRC-32 of `data` (a string's UTF-8 bytes), continuing from `value`: node:zlib's `crc32`. */
export function crc32(data: string | Uint8Array, value = 0): number {
  if (native === null) {
    const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
    if (bytes.length <= budget) {
      budget -= bytes.length;
      return crcJs(bytes, value);
    }
    native = (createRequire(import.meta.url)('node:zlib') as typeof import('node:zlib')).crc32;
  }
  return native(data, value);
}

function crcJs(bytes: Uint8Array, value: number): number {
  const t = table ?? makeTable();
  let c = ~value;
  for (let i = 0; i < bytes.length; i++) c = t[(c ^ bytes[i]!) & 0xff]! ^ (c >>> 8);
  return ~c >>> 0;
}

function makeTable(): Int32Array {
  table = new Int32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c;
  }
  return table;
}
