import fs from 'node:fs';

/**
 * The file-system calls on the file store's write paths (open the journal, write and fsync an
 * append, write-fsync-rename a snapshot, make a session folder). A store is given Node's `fs`
 * unless its options name another object with these methods: tests pass one that fails the
 * Nth call with EIO or ENOSPC, to show that every failing append is reported and leaves the
 * journal loadable. Reads, locks and repairs use `fs` directly.
 */
export type StoreFs = Pick<typeof fs, 'openSync' | 'writeSync' | 'fsyncSync' | 'fdatasyncSync' | 'renameSync'>;

/** Node's own `fs`: what every store uses unless told otherwise. */
export const nodeFs: StoreFs = fs;
