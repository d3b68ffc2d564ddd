/**
 * `pnpm bench`: the protocol core's figures, each against a baseline measured in the same run.
 *
 * (a) codec encode/decode MB/s vs Buffer base64url, (b) parse + validate of a 10,000-item
 * read/userpw body vs JSON.parse alone (goal ≤ 2×), (c) client overhead per request vs a bare
 * fetch + JSON.parse to the same local server (goal ≤ 1.15×), beside ofetch alone and the last
 * release's client (tooling/repo/last-release.json, built once in the OS temp dir) in the same
 * rounds. Runs the built package (`dist/`).
 */

import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { type Figure, startBenchmark } from '@vaultline/repo/benchmarks';
import { buildLastRelease } from '@vaultline/repo/release';
import { ofetch } from 'ofetch';
import * as v from 'valibot';
import { createVaultClient } from '../dist/index.js';
import { decodeValue, encodeValue, ItemListSchema } from '../dist/wire.js';

/** A quick run (`--quick`) prints its figures but does not record them: its budgets are too short. */
const QUICK = process.argv.includes('--quick');
const release = buildLastRelease(['@vaultline/protocol']);
/** The release's client, as its own API had it (its options and `readItems`). */
const released = (await import(join(release.dir, 'packages/protocol/dist/index.js'))) as {
  createVaultClient(options: Record<string, unknown>): {
    readItems(query: { ids: number[] }): Promise<unknown>;
  };
};
const run = startBenchmark({
  id: 'protocol',
  package: '@vaultline/protocol',
  script: 'bench/run.ts',
  command: 'pnpm --filter @vaultline/protocol bench',
});

interface Timing {
  /** Median time of one run, in ms. */
  ms: number;
  runs: number;
}

/**
 * Times `ours` and `baseline` in alternating batches for about `budgetMs` after a warm-up, so that
 * drift (JIT, GC, other processes on the machine) hits both alike; keeps each side's median.
 */
function compare(
  ours: () => unknown,
  baseline: () => unknown,
  budgetMs: number,
  batch = 1,
): [Timing, Timing] {
  const batchTime = (fn: () => unknown) => {
    const start = performance.now();
    for (let i = 0; i < batch; i++) fn();
    return (performance.now() - start) / batch;
  };
  const warmUntil = performance.now() + budgetMs / 4;
  while (performance.now() < warmUntil) {
    batchTime(ours);
    batchTime(baseline);
  }
  const a: number[] = [];
  const b: number[] = [];
  const until = performance.now() + budgetMs;
  while (performance.now() < until || a.length < 7) {
    a.push(batchTime(ours));
    b.push(batchTime(baseline));
  }
  const median = (values: number[]) => [...values].sort((x, y) => x - y)[Math.floor(values.length / 2)]!;
  return [
    { ms: median(a), runs: a.length * batch },
    { ms: median(b), runs: b.length * batch },
  ];
}

function rate(bytes: number, timing: Timing): number {
  return bytes / 1e6 / (timing.ms / 1e3);
}

function mbps(bytes: number, timing: Timing): string {
  return `${rate(bytes, timing).toFixed(0).padStart(6)} MB/s`;
}

/** `lo–hi` of some values, or the one value when they round alike. */
function span(values: number[], digits: number): string {
  const [lo, hi] = [Math.min(...values).toFixed(digits), Math.max(...values).toFixed(digits)];
  return lo === hi ? lo : `${lo}–${hi}`;
}

function ratio(ours: Timing, baseline: Timing): string {
  return `${(ours.ms / baseline.ms).toFixed(2)}×`;
}

/** Text of about `bytes` UTF-8 bytes, mostly ASCII with some accents and emoji, like real values. */
function sampleText(bytes: number): string {
  const unit = 'p@ss/w0rd+;=% Équipe 🔑 line\n';
  const unitBytes = Buffer.byteLength(unit);
  return unit.repeat(Math.ceil(bytes / unitBytes)).slice(0, bytes - 8);
}

function codecBench(): Figure {
  const found = {
    encode: [] as number[],
    encodeRatio: [] as number[],
    decode: [] as number[],
    decodeRatio: [] as number[],
  };
  console.log('(a) codec: encodeValue / decodeValue vs Buffer base64url');
  for (const [name, size, batch] of [
    ['1 KiB', 1024, 2000],
    ['1 MiB', 1024 * 1024, 1],
  ] as const) {
    const value = sampleText(size);
    const bytes = Buffer.byteLength(value);
    const encoded = encodeValue(value);
    const nodeEncoded = Buffer.from(value).toString('base64url');
    if (decodeValue(encoded) !== value || Buffer.from(nodeEncoded, 'base64url').toString() !== value) {
      throw new Error('codec bench: round trip failed');
    }
    const budget = QUICK ? 150 : 1200;
    const [enc, encBase] = compare(
      () => encodeValue(value),
      () => Buffer.from(value).toString('base64url'),
      budget,
      batch,
    );
    const [dec, decBase] = compare(
      () => decodeValue(encoded),
      () => Buffer.from(nodeEncoded, 'base64url').toString(),
      budget,
      batch,
    );
    console.log(
      `    ${name.padEnd(6)} encode ${mbps(bytes, enc)}  Buffer ${mbps(bytes, encBase)}  → ${ratio(enc, encBase)} the time`,
    );
    console.log(
      `    ${name.padEnd(6)} decode ${mbps(bytes, dec)}  Buffer ${mbps(bytes, decBase)}  → ${ratio(dec, decBase)} the time`,
    );
    found.encode.push(rate(bytes, enc));
    found.encodeRatio.push(enc.ms / encBase.ms);
    found.decode.push(rate(bytes, dec));
    found.decodeRatio.push(dec.ms / decBase.ms);
  }
  return {
    figure: 'codec vs `Buffer` base64url (1 KiB and 1 MiB values)',
    result:
      `encode ${span(found.encode, 0)} MB/s (${span(found.encodeRatio, 1)}× Buffer's time), ` +
      `decode ${span(found.decode, 0)} MB/s (${span(found.decodeRatio, 1)}×)`,
  };
}

/** A read/userpw body as TeamPass sends it: an object keyed by id, every value a string. */
function userpwBody(count: number): string {
  const records: Record<string, Record<string, string>> = {};
  for (let i = 1; i <= count; i++) {
    const id = String(1000 + i);
    records[id] = {
      id,
      label: `service-${i} database`,
      description: i % 3 === 0 ? '' : `Production credentials for service ${i}`,
      login: `svc_${i}`,
      email: i % 2 === 0 ? `svc${i}@example.com` : '',
      url: `https://svc-${i}.example.com/login`,
      pw: i % 50 === 0 ? '' : `Zx9!${i}-q#Lm${(i * 7919) % 100000}`,
      folder_id: String(1 + (i % 40)),
      path: `Team > Services > Group ${i % 40}`,
    };
  }
  return JSON.stringify(records);
}

function parseBench(): Figure {
  const body = userpwBody(10_000);
  const parsed = v.parse(ItemListSchema, JSON.parse(body));
  if (parsed.length !== 10_000 || parsed[0]?.path.length !== 3) throw new Error('parse bench: wrong result');
  const budget = QUICK ? 400 : 4000;
  const [ours, baseline] = compare(
    () => v.parse(ItemListSchema, JSON.parse(body)),
    () => JSON.parse(body),
    budget,
  );
  console.log('(b) parse + validate a 10,000-item read/userpw body (object keyed by id)');
  console.log(
    `    JSON.parse + v.parse(ItemListSchema) ${ours.ms.toFixed(1)} ms   JSON.parse alone ${baseline.ms.toFixed(1)} ms` +
      `   (${(body.length / 1e6).toFixed(1)} MB)  → ${ratio(ours, baseline)} (goal ≤ 2×)`,
  );
  return {
    figure: 'parse + validate 10,000 read/userpw records vs `JSON.parse`',
    result: ratio(ours, baseline),
    goal: '≤ 2×',
  };
}

async function clientBench(): Promise<Figure[]> {
  const apiKey = 'benchKey0123456789abcdefghijklmnopqrstu';
  const body = JSON.stringify([
    {
      id: '10',
      label: 'db',
      description: 'Production database',
      login: 'admin',
      email: 'ops@example.com',
      url: 'https://db.example.com',
      pw: 's3cret-p@ss',
      folder_id: '1',
      path: 'Team > Ops',
    },
  ]);
  const server = createServer((req, res) => {
    if (!req.url?.startsWith('/api/index.php/read/items/10?apikey=')) {
      res.statusCode = 404;
      res.end('{"err":"unexpected"}');
      return;
    }
    res.setHeader('content-type', 'application/json');
    res.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const url = `${base}/api/index.php/read/items/10?apikey=${apiKey}`;
  // TeamPass 2's way, as a connection stores it: the key in the query, no identification first.
  const client = createVaultClient({ baseUrl: base, auth: apiKey, server: 'teampass-compatible' });
  // The same way in the release's options: the legacy dialect, the key in the query.
  const releaseClient = released.createVaultClient({
    baseUrl: base,
    apiKey,
    dialect: 'legacy',
    keyTransport: 'query',
  });

  async function bare(): Promise<unknown> {
    const response = await fetch(url, { headers: { accept: 'application/json' } });
    return JSON.parse(await response.text());
  }
  /** What the client must do at least: a timeout signal on fetch, and validation. For the breakdown. */
  async function floor(): Promise<unknown> {
    const response = await fetch(url, {
      headers: { accept: 'application/json' },
      signal: AbortSignal.timeout(10_000),
    });
    return v.parse(ItemListSchema, JSON.parse(await response.text()));
  }
  async function viaClient(): Promise<unknown> {
    return client.items.get(10);
  }
  async function viaRelease(): Promise<unknown> {
    return releaseClient.readItems({ ids: [10] });
  }
  /** ofetch alone, as the client calls it: what the library costs before the client's own work. */
  async function viaOfetch(): Promise<unknown> {
    return ofetch(url, { headers: { accept: 'application/json' }, retry: 0 });
  }
  /** Wall time and CPU time (this process: client and server alike) per request, in µs. */
  async function run(fn: () => Promise<unknown>, count: number): Promise<{ wall: number; cpu: number }> {
    const cpu = process.cpuUsage();
    const start = performance.now();
    for (let i = 0; i < count; i++) await fn();
    const used = process.cpuUsage(cpu);
    return { wall: ((performance.now() - start) * 1000) / count, cpu: (used.user + used.system) / count };
  }

  const rounds = QUICK ? 6 : 30;
  const perRound = 100;
  await run(bare, 1000);
  await run(floor, 1000);
  await run(viaClient, 1000);
  await run(viaRelease, 1000);
  await run(viaOfetch, 1000);
  // Many short rounds, alternating, so that drift (JIT, GC, other processes on the machine) hits
  // every side alike; the median of each side is kept.
  const sides = { bare, floor, ofetch: viaOfetch, client: viaClient, release: viaRelease };
  const times = Object.fromEntries(Object.keys(sides).map((side) => [side, []])) as unknown as Record<
    keyof typeof sides,
    { wall: number; cpu: number }[]
  >;
  for (let round = 0; round < rounds; round++)
    for (const [side, fn] of Object.entries(sides))
      times[side as keyof typeof sides].push(await run(fn, perRound));
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
  const pick = (side: keyof typeof times, kind: 'wall' | 'cpu'): Timing => ({
    ms: median(times[side].map((t) => t[kind])),
    runs: rounds * perRound,
  });
  await new Promise<void>((resolve) => server.close(() => resolve()));
  console.log(
    `(c) client overhead per request (${rounds * perRound} sequential requests each, after warm-up)`,
  );
  for (const kind of ['wall', 'cpu'] as const) {
    const [client, base, least] = [pick('client', kind), pick('bare', kind), pick('floor', kind)];
    console.log(
      `    ${kind.padEnd(4)}  client.items.get ${(client.ms).toFixed(0)} µs   fetch + JSON.parse ${base.ms.toFixed(0)} µs` +
        `   → ${ratio(client, base)}${kind === 'wall' ? ' (goal ≤ 1.15×)' : ''}` +
        `   [fetch + timeout signal + JSON.parse + v.parse ${least.ms.toFixed(0)} µs = ${ratio(least, base)}]` +
        `   [ofetch alone ${ratio(pick('ofetch', kind), base)}; ${release.name}'s client ${ratio(pick('release', kind), base)}]`,
    );
  }
  const bareWall = pick('bare', 'wall');
  return [
    {
      figure: 'client request vs bare `fetch` + `JSON.parse`',
      result: `${ratio(pick('client', 'wall'), bareWall)} wall, ${ratio(pick('client', 'cpu'), pick('bare', 'cpu'))} CPU (floor: fetch + timeout signal + \`v.parse\` = ${ratio(pick('floor', 'wall'), bareWall)} wall, ${ratio(pick('floor', 'cpu'), pick('bare', 'cpu'))} CPU; ofetch alone ${ratio(pick('ofetch', 'wall'), bareWall)} wall, ${ratio(pick('ofetch', 'cpu'), pick('bare', 'cpu'))} CPU)`,
      goal: '≤ 1.15×',
    },
    {
      figure: 'client request, this code / the last release',
      result: `${ratio(pick('client', 'wall'), pick('release', 'wall'))} wall, ${ratio(pick('client', 'cpu'), pick('release', 'cpu'))} CPU (the release: ${ratio(pick('release', 'wall'), bareWall)} of bare \`fetch\`)`,
      goal: '≤ 1×',
    },
  ];
}

console.log(`@vaultline/protocol bench — Node ${process.version}${QUICK ? ' (quick)' : ''}`);
const codec = codecBench();
const parse = parseBench();
const client = await clientBench();
if (!QUICK) run.record([parse, ...client, codec], {}, release);
