/**
 * The telemetry surface (`baton otel`, docs/telemetry.md): sessions as OpenTelemetry traces.
 * The CLI loads this module only for `baton otel …`, so the OpenTelemetry packages cost
 * nothing to any other command.
 */
import { createHash } from 'node:crypto';
import { BatonError } from '../manager/index.js';
import type { SessionManager } from '../manager/index.js';
import { exportConfig } from './config.js';
import type { ConfigOptions, ExportConfig } from './config.js';
import { exportSessions } from './export.js';
import type { ExportReport } from './export.js';
import { Follower } from './follow.js';
import type { FollowSent } from './follow.js';
import { Sender } from './sender.js';

export type { ExportReport, SessionExport } from './export.js';
export type { FollowSent } from './follow.js';
export type { ExportConfig } from './config.js';

/** Input of {@link otelExport}. */
export interface OtelExportInput {
  manager: SessionManager;
  env: Readonly<Record<string, string | undefined>>;
  options: ConfigOptions;
  sessionIds: readonly string[];
  since: Date | null;
  onRetry: (message: string) => void;
}

/**
 * Sends the sessions' closed spans; `EXPORT_FAILED` when the collector does not take them after
 * every retry, or at once when its first connection is refused (nothing listens there).
 */
export async function otelExport(i: OtelExportInput): Promise<ExportReport> {
  const sender = await Sender.open(exportConfig(i.env, i.options), { failFast: true });
  try {
    return await exportSessions(i.manager, i.sessionIds, sender, { since: i.since, onRetry: i.onRetry });
  } finally {
    await sender.close();
  }
}

/** Input of {@link otelFollow}. */
export interface OtelFollowInput {
  manager: SessionManager;
  env: Readonly<Record<string, string | undefined>>;
  options: ConfigOptions & { name?: string };
  sessionId: string | null;
  since: Date | null;
  onSent: (s: FollowSent) => void;
  onWarning: (message: string) => void;
}

/** A running `follow`: stop it, or hear that it cannot go on. */
export interface RunningFollow {
  config: ExportConfig;
  destination: string;
  failure: Promise<never>;
  stop: () => Promise<void>;
}

/** The destination name in the cursors: `--name`, else 12 hex digits of the traces URL's hash. */
export function destinationOf(url: string, name?: string): string {
  if (name === undefined) return createHash('sha256').update(url).digest('hex').slice(0, 12);
  if (!/^[A-Za-z0-9][A-Za-z0-9_-]{0,39}$/.test(name)) {
    throw new BatonError('BAD_INPUT', `--name ${JSON.stringify(name.slice(0, 60))} is not a destination name.`, {
      hint: "Use letters, digits, '_' and '-' (no '.'), at most 40 characters.",
    });
  }
  return name;
}

/** Starts following the store; resolves once it watches and has queued the backlog. */
export async function otelFollow(i: OtelFollowInput): Promise<RunningFollow> {
  const config = exportConfig(i.env, i.options);
  const destination = destinationOf(config.url, i.options.name);
  const sender = await Sender.open(config);
  const follower = new Follower({
    manager: i.manager,
    sender,
    destination,
    sessionId: i.sessionId,
    since: i.since,
    onSent: i.onSent,
    onWarning: i.onWarning,
  });
  try {
    await follower.start();
  } catch (e) {
    await follower.stop();
    await sender.close();
    throw e;
  }
  return {
    config,
    destination,
    failure: follower.failure,
    stop: async () => {
      await follower.stop();
      await sender.close();
    },
  };
}
