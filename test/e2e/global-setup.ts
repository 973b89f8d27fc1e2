/**
 * vitest global setup: makes sure the real agent CLIs of the hook end-to-end tests are in
 * their cache folder (installing them from the npm registry, pinned, the first time; a few
 * file checks after that). A refusal does not stop the other tests: the end-to-end tests
 * fail with what the registry said.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    testClis: { ok: boolean; lines: string[] };
  }
}

export default async function setup(project: TestProject): Promise<void> {
  const script = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../scripts/test-clis.mjs');
  const { ensureTestClis } = (await import(script)) as { ensureTestClis: () => { ok: boolean; lines: string[] } };
  const r = ensureTestClis();
  if (!r.ok) console.error(`[test setup] ${r.lines.join('\n[test setup] ')}`);
  project.provide('testClis', r);
}
