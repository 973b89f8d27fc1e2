/**
 * One worker of the cross-process race (saver.test.ts): reads the thread's newest
 * checkpoint, says "ready", waits for "go" on stdin, then writes the next step and prints
 * what happened as one JSON line.
 */
import readline from 'node:readline';
import { emptyCheckpoint, uuid6 } from '@langchain/langgraph-checkpoint';
import type { CheckpointMetadata } from '@langchain/langgraph-checkpoint';
import { BatonSaver } from '../../src/langgraph/index.js';

const [url, threadId] = process.argv.slice(2) as [string, string];
const saver = new BatonSaver({ url, env: {}, agent: `worker-${process.pid}` });
const seen = await saver.getTuple({ configurable: { thread_id: threadId } });
process.stdout.write('ready\n');
const rl = readline.createInterface({ input: process.stdin });
await new Promise<void>((resolve) => rl.once('line', () => resolve()));
rl.close();
try {
  const cfg = await saver.put(
    seen!.config,
    { ...emptyCheckpoint(), id: uuid6(-3) },
    { source: 'loop', step: 0, parents: {} } as CheckpointMetadata,
    {},
  );
  process.stdout.write(`${JSON.stringify({ ok: true, checkpointId: cfg.configurable!['checkpoint_id'] })}\n`);
} catch (e) {
  process.stdout.write(`${JSON.stringify({ ok: false, code: (e as { code?: string }).code ?? String(e) })}\n`);
}
await saver.close();
