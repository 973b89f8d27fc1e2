import { MemoryStore } from '../../src/store/memory.js';
import { runStoreConformance } from '../../src/testing/conformance.js';

runStoreConformance('memory', async () => ({ store: new MemoryStore(), cleanup: async () => undefined }));
