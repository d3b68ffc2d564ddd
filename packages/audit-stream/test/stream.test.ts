import { afterEach, describe, expect, it } from 'vitest';
import { createAuditStream, formatSyslog, parseSinks, SD_ID } from '../src/index.ts';
import {
  parseSyslog,
  type Receiver,
  selfSignedCertificate,
  startHangingSink,
  startHttpCollector,
  startSyslogReceiver,
} from '../src/testing.ts';

const origin = { appName: 'vaultline-server', hostname: 'host one', procId: 42 };
const logged: { message: string; details: object }[] = [];
const logWaiters = new Set<{ match: (entry: (typeof logged)[number]) => boolean; resolve: () => void }>();
const log = (details: object, message: string) => {
  logged.push({ message, details });
  for (const waiter of logWaiters) if (waiter.match({ message, details })) waiter.resolve();
};
const logger = { warn: log, info: log };
/** Resolves once the stream logged this line about this sink (earlier tests' streams log too). */
const logLine = (message: string, sink: string) => {
  const match = (entry: (typeof logged)[number]) =>
    entry.message === message && (entry.details as { sink?: string }).sink === sink;
  return logged.some(match)
    ? Promise.resolve()
    : new Promise<void>((resolve) => logWaiters.add({ match, resolve }));
};
const closing: { close(waitMs?: number): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(closing.splice(0).map((item) => item.close(0)));
  logged.length = 0;
});

const event = (n: number) => ({
  time: '2026-12-07T12:00:00.000Z',
  actor: 'alice',
  keyLabel: 'ci "deploy" [prod]',
  action: 'read/item',
  target: `item ${n}`,
  address: '203.0.113.7',
  outcome: 'ok',
  identity: { issuer: 'https://ci.example', subject: 'repo:x/y' },
});

describe('parseSinks', () => {
  it('reads every kind of sink, and names a bad entry by position without echoing it', () => {
    expect(
      parseSinks(
        ' stdout, syslog+tcp://siem:514,syslog+udp://[::1]:514 ,syslog+tls://siem:6514,https://c.example/a',
      ),
    ).toMatchObject([
      { kind: 'stdout' },
      { kind: 'syslog', transport: 'tcp', host: 'siem', port: 514 },
      { kind: 'syslog', transport: 'udp', host: '::1', port: 514 },
      { kind: 'syslog', transport: 'tls', host: 'siem', port: 6514 },
      { kind: 'http' },
    ]);
    expect(parseSinks('')).toEqual([]);
    expect(() => parseSinks('stdout,ftp://user:hunter2@x')).toThrow(/entry 2 has the scheme "ftp:"/);
    expect(() => parseSinks('stdout,ftp://user:hunter2@x')).not.toThrow(/hunter2/);
    expect(() => parseSinks('syslog+tcp://siem')).toThrow(/entry 1 must be syslog\+tcp:\/\/host:port/);
    expect(() => parseSinks('not a url')).toThrow(/entry 1 is not a sink/);
  });
});

describe('formatSyslog', () => {
  it('writes RFC 5424 with the event as structured data, escaped, nested fields dotted', () => {
    const parsed = parseSyslog(formatSyslog(event(7), origin));
    expect(parsed).toMatchObject({
      facility: 13,
      severity: 6,
      timestamp: '2026-12-07T12:00:00.000Z',
      hostname: 'host_one',
      appName: 'vaultline-server',
      procId: '42',
      msgId: 'read/item',
    });
    expect(parsed.data[SD_ID]).toMatchObject({
      keyLabel: 'ci "deploy" [prod]',
      target: 'item 7',
      'identity.subject': 'repo:x/y',
    });
    expect(JSON.parse(parsed.message)).toEqual(event(7));
    expect(parseSyslog(formatSyslog({ ...event(1), outcome: 'not_found' }, origin)).severity).toBe(4);
  });
});

describe('createAuditStream', () => {
  it('delivers every event to TCP, UDP and TLS syslog receivers and an HTTP collector with the bearer token', async () => {
    const { cert, key } = await selfSignedCertificate();
    const tcp = await startSyslogReceiver({ transport: 'tcp' });
    const udp = await startSyslogReceiver({ transport: 'udp' });
    const tls = await startSyslogReceiver({ transport: 'tls', cert, key });
    const http = await startHttpCollector();
    closing.push(tcp, udp, tls, http);
    const stream = createAuditStream({
      sinks: parseSinks([tcp.url, udp.url, tls.url, http.url].join(',')),
      appName: 'vaultline-server',
      logger,
      token: 'collector-token',
      ca: cert,
    });
    closing.push(stream);
    for (let n = 1; n <= 20; n++) stream.send(event(n));
    for (const receiver of [tcp, udp, tls] as Receiver<ReturnType<typeof parseSyslog>>[]) {
      await receiver.waitFor((message) => message.data[SD_ID]?.target === 'item 20');
      expect(receiver.errors).toEqual([]);
      expect(receiver.received.map((message) => message.data[SD_ID]?.target)).toEqual(
        Array.from({ length: 20 }, (_, i) => `item ${i + 1}`),
      );
    }
    await http.waitFor((batch) => batch.events.some((e) => e.target === 'item 20'));
    expect(http.received.flatMap((batch) => batch.events)).toEqual(
      Array.from({ length: 20 }, (_, i) => event(i + 1)),
    );
    expect(http.received.every((batch) => batch.headers.authorization === 'Bearer collector-token')).toBe(
      true,
    );
    expect(stream.stats()).toMatchObject({ queued: 0, dropped: 0 });
  });

  it('writes JSON lines to stdout', async () => {
    const lines: string[] = [];
    const stream = createAuditStream({
      sinks: parseSinks('stdout'),
      appName: 'x',
      logger,
      stdout: { write: (chunk: string) => lines.push(chunk) },
    });
    stream.send(event(1));
    stream.send(event(2));
    await stream.close();
    expect(
      lines
        .join('')
        .trimEnd()
        .split('\n')
        .map((line) => JSON.parse(line)),
    ).toEqual([event(1), event(2)]);
  });

  it('never waits on a hanging sink: a full queue drops and counts, and the log says so', async () => {
    const hanging = await startHangingSink();
    closing.push(hanging);
    const stream = createAuditStream({
      sinks: parseSinks(hanging.httpUrl),
      appName: 'x',
      logger,
      queueSize: 5,
      timeoutMs: 60_000,
    });
    closing.push(stream);
    for (let n = 1; n <= 8; n++) stream.send(event(n));
    expect(stream.stats()).toMatchObject({ queued: 5, dropped: 3 });
    await hanging.waitForConnections(1);
    expect(logged).toContainEqual({
      message: 'audit events dropped: the queue is full',
      details: { sink: hanging.httpUrl, dropped: 1, droppedTotal: 1 },
    });
  });

  it('retries a sink that was down and delivers once it is up', async () => {
    const http = await startHttpCollector({ status: 503 });
    closing.push(http);
    const stream = createAuditStream({ sinks: parseSinks(http.url), appName: 'x', logger });
    closing.push(stream);
    stream.send(event(1));
    await logLine('audit sink not reachable; retrying', http.url);
    expect(stream.stats().queued).toBe(1);
    http.answer(200);
    await logLine('audit sink reachable again', http.url);
    expect(stream.stats()).toMatchObject({ queued: 0, dropped: 0 });
    expect(http.received.map((batch) => batch.events)).toEqual(http.received.map(() => [event(1)]));
  });

  it('drops a batch the collector refuses for good (HTTP 400) and counts it', async () => {
    const http = await startHttpCollector({ status: 400 });
    closing.push(http);
    const stream = createAuditStream({ sinks: parseSinks(http.url), appName: 'x', logger });
    closing.push(stream);
    stream.send(event(1));
    await http.waitFor(() => true);
    await stream.close();
    expect(stream.stats()).toMatchObject({ queued: 0, dropped: 1 });
  });
});
