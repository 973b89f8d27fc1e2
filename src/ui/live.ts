/**
 * Live updates: one subscription to the store's change feed (through the manager) fanned out
 * to every open page as server-sent events. An event says which session moved to which
 * revision; the page reads again what it shows. A comment line every 15 s keeps proxies and
 * the browser from closing an idle stream.
 */
import type { ServerResponse } from 'node:http';
import type { SessionManager } from '../manager/index.js';

const KEEP_ALIVE_MS = 15_000;

/** The open event streams and the feed behind them. */
export class LiveFeed {
  private readonly clients = new Set<ServerResponse>();
  private stopFeed: (() => Promise<void>) | null = null;
  private timer: NodeJS.Timeout | null = null;

  /** Starts listening to the store; `onWarning` hears why live updates are off, if they are. */
  async start(m: SessionManager, onWarning: (message: string) => void): Promise<void> {
    try {
      this.stopFeed = await m.dashboard.watch((c) => this.send('change', c));
    } catch (e) {
      onWarning(`live updates are off: ${(e as Error).message}`);
    }
    this.timer = setInterval(() => this.comment('keep-alive'), KEEP_ALIVE_MS);
    this.timer.unref();
  }

  /** Turns `res` into an event stream until the page goes away. */
  open(res: ServerResponse, headers: Record<string, string>): void {
    res.writeHead(200, { ...headers, 'Content-Type': 'text/event-stream; charset=utf-8', Connection: 'keep-alive' });
    res.write(`retry: 1000\nevent: ready\ndata: {"live":${this.stopFeed !== null}}\n\n`);
    this.clients.add(res);
    res.on('close', () => this.clients.delete(res));
  }

  private send(event: string, data: unknown): void {
    const frame = `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
    for (const c of this.clients) c.write(frame);
  }

  private comment(text: string): void {
    for (const c of this.clients) c.write(`: ${text}\n\n`);
  }

  /** Ends every stream and stops the feed. */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    for (const c of this.clients) c.end();
    this.clients.clear();
    await this.stopFeed?.();
    this.stopFeed = null;
  }
}
