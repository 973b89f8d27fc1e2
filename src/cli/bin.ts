/* Entry point of the whole CLI's bundle (dist/cli.cjs), which the `baton` launcher runs. */
import { run } from './main.js';
import { startCli } from './start.js';

startCli(run);
