/**
 * `baton otel export` against an OTLP/HTTP receiver the test runs (protobuf and JSON): the
 * span tree of a scripted workflow (a failed-then-retried phase, an interruption, a resume)
 * with the journal's names, parents, times and attributes, token sums equal to `baton
 * tokens --json`, the same ids on every export, and a collector that is down, refusing, or
 * coming back.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXIT_CODES, needBuiltCli, workspace } from '../cli/helpers.js';
import type { Workspace } from '../cli/helpers.js';
import { Receiver } from './receiver.js';
import type { ReceivedSpan } from './receiver.js';
import { scriptedWorkflow } from './scenario.js';

interface Ev {
  seq: number;
  type: string;
  time: string;
  data: Record<string, unknown>;
}

const ns = (iso: string): string => (BigInt(Date.parse(iso)) * 1_000_000n).toString();

/**
 * Env of a quick export: a short back-off, and a request timeout under the exporter's own
 * first retry delay (0.8 s at least), so each attempt is one request and its refusal costs
 * milliseconds; long enough for a loaded machine to answer a local request in time.
 */
const QUICK = { OTEL_EXPORTER_OTLP_TIMEOUT: '750', BATON_OTEL_BACKOFF_MS: '20' };

let ws: Workspace;
let events: Ev[];
let receiver: Receiver;

beforeAll(async () => {
  needBuiltCli(); // `baton run` in the workflow is a real process
  ws = workspace();
  await scriptedWorkflow(ws);
  events = (await ws.log('wf')) as unknown as Ev[];
  receiver = await new Receiver().start();
}, 60_000);

afterAll(async () => {
  await receiver?.stop();
});

/** Exports session wf to a fresh receiver and returns what it decoded. */
async function exportTo(protocol: string, env: Record<string, string> = {}): Promise<ReceivedSpan[]> {
  receiver.spans.length = 0;
  await ws.ok(['otel', 'export', '--session', 'wf', '--endpoint', receiver.url], {
    env: { OTEL_EXPORTER_OTLP_PROTOCOL: protocol, ...env },
  });
  return [...receiver.spans];
}

const first = (type: string, pred: (e: Ev) => boolean = () => true): Ev => {
  const e = events.find((x) => x.type === type && pred(x));
  if (!e) throw new Error(`no ${type} in the journal`);
  return e;
};

describe('the span tree of a scripted workflow', () => {
  it.each(['http/protobuf', 'http/json'])(
    'over %s: names, parents, journal times, status and attributes',
    async (protocol) => {
      const spans = await exportTo(protocol, {
        OTEL_SERVICE_NAME: 'shipper',
        OTEL_RESOURCE_ATTRIBUTES: 'deployment.environment=test,team=core',
        OTEL_EXPORTER_OTLP_HEADERS: 'authorization=Bearer%20secret',
      });
      expect(receiver.requests.at(-1)!.contentType).toBe(
        protocol === 'http/json' ? 'application/json' : 'application/x-protobuf',
      );
      expect(receiver.requests.at(-1)!.headers['authorization']).toBe('Bearer secret');
      const byName = (n: string): ReceivedSpan[] => spans.filter((s) => s.name === n);
      const root = byName('invoke_workflow Ship it');
      expect(root).toHaveLength(1);
      const r = root[0]!;
      // One trace, every id distinct, every parent a span of the trace, the root has none.
      expect(new Set(spans.map((s) => s.traceId))).toEqual(new Set([r.traceId]));
      expect(r.traceId).toMatch(/^[0-9a-f]{32}$/);
      expect(new Set(spans.map((s) => s.spanId)).size).toBe(spans.length);
      expect(r.parentSpanId).toBeNull();
      for (const s of spans.filter((x) => x !== r)) expect(spans.map((x) => x.spanId)).toContain(s.parentSpanId);
      // The root: the session, from its creation to its completion.
      expect([r.start, r.end]).toEqual([ns(first('session.created').time), ns(first('session.completed').time)]);
      expect(r.attributes).toMatchObject({
        'gen_ai.operation.name': 'invoke_workflow',
        'gen_ai.workflow.name': 'Ship it',
        'gen_ai.conversation.id': 'wf',
        'session.id': 'wf',
        'openinference.span.kind': 'CHAIN',
        'baton.session.status': 'completed',
      });
      expect(r.resource).toMatchObject({ 'service.name': 'shipper', 'deployment.environment': 'test', team: 'core' });
      expect(r.scope).toBe('baton');
      // Interruption (with its cause) and resume ride on the root as span events, at their journal times.
      const interrupted = first('session.interrupted');
      const ie = r.events.find((e) => e.name === 'baton.session.interrupted')!;
      expect(ie).toMatchObject({
        time: ns(interrupted.time),
        attributes: { 'baton.cause': interrupted.data['cause'] },
      });
      expect(String(interrupted.data['cause'])).not.toBe('');
      expect(r.events.find((e) => e.name === 'baton.session.resumed')!.time).toBe(ns(first('session.resumed').time));
      expect(r.events.map((e) => e.name)).toContain('baton.milestone.added');
      // Phases: one span per attempt, children of the root; the failed one in error with the recorded error's type.
      const build = byName('phase build').sort(
        (a, b) => Number(a.attributes['baton.phase.attempt']) - Number(b.attributes['baton.phase.attempt']),
      );
      expect(build.map((s) => s.attributes['baton.phase.attempt'])).toEqual([1, 2]);
      const [failed, retried] = build as [ReceivedSpan, ReceivedSpan];
      expect([failed.start, failed.end]).toEqual([
        ns(first('phase.started', (e) => e.data['phaseId'] === 'build').time),
        ns(first('phase.failed').time),
      ]);
      expect(failed.status).toEqual({ code: 2, message: 'tests fail' });
      expect(failed.attributes).toMatchObject({
        'error.type': 'test_failure',
        'baton.phase.outcome': 'failed',
        'gen_ai.agent.name': 'builder',
        'session.id': 'wf',
      });
      expect(failed.events.find((e) => e.name === 'exception')!.attributes).toMatchObject({
        'exception.type': 'test_failure',
        'exception.message': '3 tests fail',
      });
      expect([retried.start, retried.end]).toEqual([
        ns(first('phase.retried').time),
        ns(first('phase.completed', (e) => e.data['phaseId'] === 'build').time),
      ]);
      expect(retried.status.code).toBe(0);
      for (const p of [...build, ...byName('phase plan'), ...byName('phase test')])
        expect(p.parentSpanId).toBe(r.spanId);
      expect(byName('phase plan')[0]!.events.find((e) => e.name === 'baton.decision')!.attributes).toMatchObject({
        'baton.decision.choice': 'TypeScript',
        'baton.decision.alternatives': ['Go'],
      });
      // The run that died: an agent span in error with the run's cause, from its start to its end.
      const run = byName('invoke_agent builder')[0]!;
      expect([run.start, run.end]).toEqual([ns(first('run.started').time), ns(first('run.ended').time)]);
      expect(run.status.code).toBe(2);
      expect(run.attributes).toMatchObject({
        'gen_ai.operation.name': 'invoke_agent',
        'gen_ai.agent.name': 'builder',
        'openinference.span.kind': 'AGENT',
        'process.exit.code': 3,
        'error.type': first('run.ended').data['cause'],
      });
      // Model calls: `chat {model}` client spans under the phase attempt they were spent on.
      const chats = spans.filter((s) => s.attributes['gen_ai.operation.name'] === 'chat');
      expect(chats.map((c) => c.name).sort()).toEqual(['chat claude-sonnet-4', 'chat gpt-5', 'chat gpt-5']);
      expect(chats.every((c) => c.kind === 3)).toBe(true); // SPAN_KIND_CLIENT
      expect(chats.find((c) => c.name === 'chat claude-sonnet-4')!.parentSpanId).toBe(byName('phase plan')[0]!.spanId);
      expect(chats.find((c) => c.name === 'chat claude-sonnet-4')!.attributes).toMatchObject({
        'gen_ai.provider.name': 'anthropic',
        'gen_ai.request.model': 'claude-sonnet-4',
        'gen_ai.agent.name': 'planner',
      });
    },
  );

  it('token sums equal `baton tokens --json` (input counts cached tokens, as the conventions say)', async () => {
    const spans = await exportTo('http/protobuf');
    const t = await ws.json<{ input: number; output: number; cached: number; cacheWrite?: number }>([
      'tokens',
      '--session',
      'wf',
    ]);
    const sum = (k: string): number =>
      spans.reduce((n, s) => n + (typeof s.attributes[k] === 'number' ? (s.attributes[k] as number) : 0), 0);
    expect(t.input).toBeGreaterThan(0);
    expect(sum('gen_ai.usage.input_tokens')).toBe(t.input + t.cached + (t.cacheWrite ?? 0));
    expect(sum('gen_ai.usage.output_tokens')).toBe(t.output);
    expect(sum('gen_ai.usage.cache_read.input_tokens')).toBe(t.cached);
    expect(sum('gen_ai.usage.cache_creation.input_tokens')).toBe(t.cacheWrite ?? 0);
  });

  it('exporting twice, in either encoding, sends identical ids and the same spans', async () => {
    const key = (s: ReceivedSpan): string => JSON.stringify({ ...s, contentType: '' });
    const a = (await exportTo('http/protobuf')).map(key).sort();
    const b = (await exportTo('http/protobuf')).map(key).sort();
    const c = (await exportTo('http/json')).map(key).sort();
    expect(a.length).toBeGreaterThan(5);
    expect(b).toEqual(a);
    expect(c).toEqual(a);
  });
});

describe('a collector that is down, refusing, or coming back', () => {
  it('down (nothing listens at the port): export fails at once, after one attempt, naming the endpoint and what to do, and changes nothing', async () => {
    const down = await new Receiver().start();
    const url = down.url;
    const host = new URL(url).host;
    await down.stop();
    const before = await ws.log('wf');
    // The default retry policy (4 retries, 1 s back-off doubling, 10 s requests): before, the
    // exporter's own retries of the refused connection inside each of the 5 attempts took 55 s.
    const r = await ws.run(['otel', 'export', '--session', 'wf', '--endpoint', url]);
    expect(r.code).toBe(EXIT_CODES.EXPORT_FAILED);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(`error[EXPORT_FAILED]: Could not send`);
    expect(r.stderr).toContain(`${url}/v1/traces`);
    expect(r.stderr).toContain('after 1 attempt: ECONNREFUSED');
    // No retry was made: no "attempt 2 of 5" warning.
    expect(r.stderr).not.toContain('did not take');
    expect(r.stderr).toContain(`hint: No collector answers at ${host}: start it`);
    expect(r.stderr).toContain('--endpoint');
    expect(await ws.log('wf')).toEqual(before);
    const j = await ws.run(['otel', 'export', '--session', 'wf', '--endpoint', url, '--json']);
    expect(j.code).toBe(EXIT_CODES.EXPORT_FAILED);
    expect(JSON.parse(j.stdout).error).toMatchObject({
      code: 'EXPORT_FAILED',
      details: {
        endpoint: `${url}/v1/traces`,
        attempts: 1,
        reason: expect.stringMatching(/^ECONNREFUSED/),
        delivered: 0,
      },
    });
  });

  it('an unknown host fails at once too (ENOTFOUND), naming it', async () => {
    const r = await ws.run([
      'otel',
      'export',
      '--session',
      'wf',
      '--endpoint',
      'http://no-such-collector.invalid:4318',
      '--json',
    ]);
    expect(r.code).toBe(EXIT_CODES.EXPORT_FAILED);
    const e = JSON.parse(r.stdout).error;
    expect(e).toMatchObject({
      code: 'EXPORT_FAILED',
      details: { attempts: 1, reason: expect.stringMatching(/^ENOTFOUND: no host named no-such-collector\.invalid/) },
    });
    expect(e.message).toContain('http://no-such-collector.invalid:4318/v1/traces');
  });

  it('slow: a request past OTEL_EXPORTER_OTLP_TIMEOUT fails the attempt; export ends EXPORT_FAILED naming the endpoint, in bounded time', async () => {
    receiver.delayMs = 1500;
    try {
      const t0 = Date.now();
      const r = await ws.run(['otel', 'export', '--session', 'wf', '--endpoint', receiver.url, '--retries', '1'], {
        env: { OTEL_EXPORTER_OTLP_TIMEOUT: '200', BATON_OTEL_BACKOFF_MS: '20' },
      });
      expect(r.code).toBe(EXIT_CODES.EXPORT_FAILED);
      expect(r.stderr).toContain(`${receiver.url}/v1/traces`);
      expect(r.stderr).toMatch(/timed out/i);
      // Waiting for both slow answers would take 3 s or more.
      expect(Date.now() - t0).toBeLessThan(2900);
    } finally {
      receiver.delayMs = 0;
    }
  });

  it('refusing then taking (503 twice): the retries deliver every span once', async () => {
    const expected = (await exportTo('http/protobuf')).map((s) => s.spanId).sort();
    receiver.spans.length = 0;
    receiver.refuse = 2;
    const r = await ws.run(['otel', 'export', '--session', 'wf', '--endpoint', receiver.url, '--retries', '3'], {
      env: QUICK,
    });
    expect(r.code, r.stderr).toBe(0);
    expect(receiver.refuse).toBe(0);
    expect(r.stderr.match(/did not take/g)).toHaveLength(2);
    expect(receiver.spans.map((s) => s.spanId).sort()).toEqual(expected);
  });

  it('down at first, then up: the export run again sends every span, once', async () => {
    const expected = (await exportTo('http/protobuf')).map((s) => s.spanId).sort();
    const later = await new Receiver().start();
    const port = later.portNumber;
    await later.stop();
    const refused = await ws.run(['otel', 'export', '--session', 'wf', '--endpoint', later.url], { env: QUICK });
    expect(refused.code).toBe(EXIT_CODES.EXPORT_FAILED);
    await later.start(port);
    const r = await ws.run(['otel', 'export', '--session', 'wf', '--endpoint', later.url], { env: QUICK });
    await later.stop();
    expect(r.code, r.stderr).toBe(0);
    expect(later.spans.map((s) => s.spanId).sort()).toEqual(expected);
  });
});

describe('refusals before anything is sent', () => {
  it.each([
    [['--protocol', 'grpc'], 'BAD_INPUT', 'http/protobuf or http/json'],
    [['--endpoint', 'ftp://x'], 'BAD_INPUT', 'http://'],
    [['--endpoint', 'not a url'], 'BAD_INPUT', 'not a URL'],
    [['--retries', 'many'], 'BAD_INPUT', '--retries'],
    [['--all', '--session', 'wf'], 'BAD_INPUT', '--all'],
    [['--since', 'yesterday'], 'BAD_INPUT', '--since'],
  ])('%j is %s', async (args, code, words) => {
    receiver.requests.length = 0;
    const r = await ws.run([
      'otel',
      'export',
      ...(args.includes('--session') ? [] : ['--session', 'wf']),
      '--endpoint',
      receiver.url,
      ...args,
    ]);
    expect(r.code).toBe(EXIT_CODES[code as keyof typeof EXIT_CODES]);
    expect(r.stderr).toContain(words);
    expect(receiver.requests).toHaveLength(0);
  });

  it('--all and --since choose the sessions; spans still open are counted, not sent', async () => {
    const w = workspace();
    await w.ok(['start', 'Open one', '--id', 'open1', '--phases', 'a']);
    await w.ok(['phase', 'start', 'a']);
    await w.ok(['tokens', 'add', '--agent', 'x', '--input', '5', '--phase', 'a']);
    receiver.spans.length = 0;
    const r = await w.json<{ sessions: Array<{ id: string; spans: number; open: number }> }>([
      'otel',
      'export',
      '--all',
      '--endpoint',
      receiver.url,
    ]);
    expect(r.sessions).toEqual([expect.objectContaining({ id: 'open1', spans: 1, open: 2 })]);
    expect(receiver.spans.map((s) => s.name)).toEqual(['chat x']);
    const none = await w.json<{ sessions: unknown[] }>([
      'otel',
      'export',
      '--since',
      '2099-01-01T00:00:00Z',
      '--endpoint',
      receiver.url,
    ]);
    expect(none.sessions).toEqual([]);
  });
});
