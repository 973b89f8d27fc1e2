import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

/**
 * node:crypto, loaded on first use: it pulls in the stream machinery, which costs several
 * milliseconds at start-up, and most `baton` invocations never hash anything (BENCHMARKS.md's
 * `tokens add` row needs it: +3% CPU time loaded at start-up).
 */
export function nodeCrypto(): typeof import('node:crypto') {
  return require('node:crypto') as typeof import('node:crypto');
}
