/**
 * A cache of which baton session each agent conversation was bound to
 * (`<hook folder>/bindings.json`), so a hook finds its session without reading every open
 * session. Only a hint: the session itself holds the binding (`agent.bound`) and is checked
 * before the hint is used; a missing, damaged or stale file just means a slower lookup.
 */
import fs from 'node:fs';
import path from 'node:path';

/** Most conversations remembered; the oldest are dropped first. */
const MAX_ENTRIES = 500;

/** See the file comment. */
export class BindingIndex {
  private cache: Record<string, string> | null = null;

  constructor(private readonly dir: string) {}

  private get file(): string {
    return path.join(this.dir, 'bindings.json');
  }

  private read(): Record<string, string> {
    if (this.cache) return this.cache;
    try {
      const v = JSON.parse(fs.readFileSync(this.file, 'utf8')) as unknown;
      this.cache = v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, string>) : {};
    } catch {
      this.cache = {};
    }
    return this.cache;
  }

  /** The session a conversation was bound to, as remembered. */
  get(cli: string, agentSessionId: string): string | null {
    const v = this.read()[`${cli}:${agentSessionId}`];
    return typeof v === 'string' ? v : null;
  }

  /** Remembers a binding (atomically replaced; a failure only costs a slower lookup later). */
  set(cli: string, agentSessionId: string, sessionId: string): void {
    const all = this.read();
    const key = `${cli}:${agentSessionId}`;
    if (all[key] === sessionId) return;
    delete all[key];
    all[key] = sessionId;
    const keys = Object.keys(all);
    for (const k of keys.slice(0, Math.max(0, keys.length - MAX_ENTRIES))) delete all[k];
    try {
      fs.mkdirSync(this.dir, { recursive: true, mode: 0o700 });
      const tmp = `${this.file}.${process.pid}.tmp`;
      fs.writeFileSync(tmp, JSON.stringify(all), { mode: 0o600 });
      fs.renameSync(tmp, this.file);
    } catch {
      // read-only or full: the sessions themselves still hold the binding
    }
  }
}
