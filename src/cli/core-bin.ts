/* Entry point of the core commands' bundle (dist/core.cjs), which the `baton` launcher runs for them (see core.ts). */
import { runCore } from './core.js';
import { startCli } from './start.js';

startCli(runCore);
