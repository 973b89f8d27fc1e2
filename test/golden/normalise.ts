/**
 * The golden test's normaliser. It replaces only what differs from one run to the next on the
 * same code, each rule narrow and for a stated reason; everything else is compared as is.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export interface NormaliseOptions {
  /** The run's temporary workspace: its absolute path becomes `<ws>`. */
  ws: string;
  /**
   * Also replace ISO-8601 times with `<time>`: only for the spawned MCP server, whose clock
   * starts at BATON_NOW and runs on with real time (the in-process CLI has a fixed clock).
   */
  times?: boolean;
  /** A spawned process's pid, replaced with `<pid>` (the in-process CLI's is this process's). */
  pid?: number;
}

/** Normalises one captured text (see the rules inline). */
export function normalise(text: string, o: NormaliseOptions): string {
  let s = text;
  // The workspace is a fresh temporary folder per run.
  s = s.split(o.ws).join('<ws>');
  // Actors (the `"host"` and `"pid"` of events and leases, in pretty JSON or in JSON inside a
  // JSON string) carry the host name and pid of the process that wrote the event: only those
  // values, in that form, are replaced.
  const host = os.hostname().replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  s = s.replace(new RegExp(`(\\\\?"host\\\\?": ?\\\\?")${host}(?=\\\\?")`, 'g'), '$1<host>');
  // Tokens by host (`tokens --json`'s `byHost`) are keyed by the host name.
  s = s.replace(new RegExp(`(\\\\?")${host}(\\\\?": ?\\{)`, 'g'), '$1<host>$2');
  for (const pid of [process.pid, o.pid])
    if (pid !== undefined) s = s.replace(new RegExp(`(\\\\?"pid\\\\?": ?)${pid}(?!\\d)`, 'g'), '$1<pid>');
  // A run's label names its process on this machine: "(run-2, pid 123 on host)"; the spawned
  // MCP server's pid is not known here, so any pid on this host is replaced in that form.
  s = s.replace(new RegExp(`pid \\d+ on ${host}(?![\\w.-])`, 'g'), 'pid <pid> on <host>');
  // A lease records the machine's boot id (`"boot"`), which changes with every boot.
  s = s.replace(/(\\?"boot\\?": ?\\?")[0-9a-f-]{36}(?=\\?")/g, '$1<boot>');
  if (o.times) s = s.replace(/\b\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{1,3})?Z\b/g, '<time>');
  return s;
}

/**
 * Every file under `dir` (sorted, relative paths) with its normalised content, as one text;
 * `only` keeps the files whose relative path matches.
 */
export function treeText(dir: string, o: NormaliseOptions & { only?: RegExp }): string {
  const out: string[] = [];
  const walk = (rel: string): void => {
    const abs = path.join(dir, rel);
    for (const e of fs
      .readdirSync(abs, { withFileTypes: true })
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
      const r = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) walk(r);
      else if (!o.only || o.only.test(r))
        out.push(`=== ${r}`, normalise(fs.readFileSync(path.join(dir, r), 'utf8'), o));
    }
  };
  walk('');
  return `${out.join('\n')}\n`;
}
