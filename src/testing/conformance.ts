/**
 * The one conformance suite every `SessionStore` must pass, with identical expectations for
 * every backend; one file per group under `spec/`. A test file calls
 * {@link runStoreConformance} with a factory that makes a fresh, empty store per test, and may
 * add the tests only its store can pass (`additionalTests`). Anything that needs several
 * processes or machines is gated on `store.capabilities`, and each optional capability on its
 * presence, never on the store's name. Published as `baton/testing` (docs/testing-a-store.md).
 */
import { describe } from 'vitest';
import { activePointerTests } from './spec/active.js';
import { conditionalAppendTests } from './spec/append.js';
import { archiveTests } from './spec/archive.js';
import { checkpointTests } from './spec/checkpoints.js';
import { createAndLoadTests } from './spec/create-load.js';
import { cursorTests } from './spec/cursors.js';
import { deleteTests } from './spec/delete.js';
import { durabilityTests } from './spec/durability.js';
import { handlesTests } from './spec/handles.js';
import { readEventsTests } from './spec/read-events.js';
import { registryTests } from './spec/registry.js';
import { repairTests } from './spec/repair.js';
import { snapshotTests } from './spec/snapshots.js';
import { unknownFieldsTests } from './spec/unknown-fields.js';
import { workspaceLockTests } from './spec/workspace-lock.js';
import { storeSuite } from './suite.js';
import type { StoreFactory, StoreSuite } from './suite.js';

export * from './fixtures.js';
export type { StoreFactory, StoreSuite, StoreUnderTest } from './suite.js';

/** How to run the suite against one store. */
export interface StoreConformanceOptions {
  /** Shown in the test names: `SessionStore conformance: <name>`. */
  name: string;
  /** Called before every test; returns a fresh, empty store (and how to clean it up). */
  create: StoreFactory;
  /** Registers more tests in the same suite, run against the same fresh store per test. */
  additionalTests?: (suite: StoreSuite) => void;
}

/** The groups, in the order they run. */
const GROUPS: ReadonlyArray<(suite: StoreSuite) => void> = [
  createAndLoadTests,
  conditionalAppendTests,
  unknownFieldsTests,
  snapshotTests,
  readEventsTests,
  registryTests,
  activePointerTests,
  archiveTests,
  deleteTests,
  repairTests,
  checkpointTests,
  workspaceLockTests,
  handlesTests,
  durabilityTests,
  cursorTests,
];

/**
 * Registers the conformance tests for one store. `create` is called once per test and must
 * return an empty store; the suite closes it and then calls `cleanup`.
 */
export function runStoreConformance(options: StoreConformanceOptions): void;
/** The same, with a name and a factory (no additional tests). */
export function runStoreConformance(name: string, makeStore: StoreFactory): void;
export function runStoreConformance(a: StoreConformanceOptions | string, makeStore?: StoreFactory): void {
  const o: StoreConformanceOptions = typeof a === 'string' ? { name: a, create: makeStore! } : a;
  describe(`SessionStore conformance: ${o.name}`, () => {
    const suite = storeSuite(o.name, o.create);
    for (const group of GROUPS) group(suite);
    o.additionalTests?.(suite);
  });
}
