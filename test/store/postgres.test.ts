import { describe } from 'vitest';
import { PostgresStore } from '../../src/store/postgres/store.js';
import { runStoreConformance } from '../../src/testing/conformance.js';
import { PG_URL, dropSchema, freshSchema, urlWith } from './pg-helpers.js';

describe.skipIf(!PG_URL)('PostgreSQL store', () => {
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
