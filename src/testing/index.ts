/**
 * `baton-sessions/testing`: the store conformance suite, for anyone writing a `SessionStore`. Run it
 * from a vitest test file (see docs/testing-a-store.md).
 */
export * from './conformance.js';
