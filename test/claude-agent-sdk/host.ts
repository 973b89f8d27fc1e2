/**
 * One "host" of the cross-host tests (resume.test.ts): a process with its own working folder
 * that opens the shared store and appends a conversation as the Claude Agent SDK's mirror
 * does, with the SDK's projectKey for its folder. Prints one JSON line when done.
 *
 *   host.ts <url> <cwd> <project|-> fixture <sessionId>
 *     the real Claude Code conversation of test/fixtures/transcripts in batches of 3 lines,
 *     sub-agent batches between the main transcript's
 *   host.ts <url> <cwd> <project|-> burst <sessionId> <tag> <batches>
 *     <batches> batches of two assistant lines (responses <tag>-<i>), the first batch also
 *     reporting the response "shared", which every burst reports
 */
import { BatonSessionStore } from '../../src/claude-agent-sdk/index.js';
import type { SessionStoreEntry } from '../../src/claude-agent-sdk/index.js';
import { batches, fixture } from './transcripts.js';

const [url, cwd, project, mode, sessionId, tag, count] = process.argv.slice(2) as [
  string,
  string,
  string,
  string,
  string,
  string?,
  string?,
];
/** The SDK's projectKey of a folder: the path with every character but letters and digits as `-`. */
const projectKeyOf = (dir: string): string => dir.replace(/[^a-zA-Z0-9]/g, '-');

const store = new BatonSessionStore({ url, cwd, env: {}, ...(project !== '-' ? { project } : {}) });
const key = { projectKey: projectKeyOf(cwd), sessionId };
let lines = 0;
if (mode === 'fixture') {
  const main = batches(fixture('claude-main.jsonl').entries, 3);
  const sub = fixture('claude-subagent.jsonl').entries;
  const subpath = `subagents/agent-${String(sub[0]!['agentId'])}`;
  const subBatches = batches(sub, 3);
  for (let i = 0; i < Math.max(main.length, subBatches.length); i++) {
    if (main[i]) await store.append(key, main[i]!);
    if (subBatches[i]) await store.append({ ...key, subpath }, subBatches[i]!);
    lines += (main[i]?.length ?? 0) + (subBatches[i]?.length ?? 0);
  }
} else {
  const assistant = (id: string, i: number): SessionStoreEntry => ({
    type: 'assistant',
    uuid: `${id}-line`,
    tag,
    i,
    message: {
      id,
      model: 'claude-sonnet-4-5',
      usage: { input_tokens: 100, output_tokens: 10, cache_read_input_tokens: 1000, cache_creation_input_tokens: 50 },
    },
  });
  for (let i = 0; i < Number(count); i++) {
    const batch = [assistant(`${tag}-${i}`, i), { type: 'user', uuid: `${tag}-${i}-user`, tag, i }];
    await store.append(key, i === 0 ? [{ ...assistant('shared', -1), uuid: `shared-${tag}` }, ...batch] : batch);
    lines += batch.length + (i === 0 ? 1 : 0);
  }
}
process.stdout.write(`${JSON.stringify({ session: store.sessionIdOf(key), lines })}\n`);
await store.close();
