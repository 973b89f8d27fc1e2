import { describe } from 'vitest';
import { PostgresStore } from '../../src/store/postgres/store.js';
import { runStoreConformance } from '../../src/testing/conformance.js';
import { PG_URL, dropSchema, freshSchema, needsRealServer, urlWith } from './pg-helpers.js';

describe.skipIf(!PG_URL)('PostgreSQL store', () => {
  needsRealServer({
    'lets a critical section use the store':
      'the section holds the lock in a transaction on one connection and uses the store on another, which one shared session cannot run at the same time',
  });
  runStoreConformance('postgres', async () => {
    const schema = freshSchema('conf');
    const url = urlWith({ schema });
    return {
      store: new PostgresStore({ url }),
      reopen: async () => new PostgresStore({ url }),
      cleanup: async () => dropSchema(schema),
    };
  });
});
