// node bench/read-timing.ts: whether read/items answers a key in the same time for an item it may
// not read as for an id that does not exist (the timing of issue 41.14). 1,000 pairs over HTTP on
// one keep-alive connection, the two reads of a pair in random order, after a warm-up; the paired
// differences give a z statistic. Exits 1 when |z| > 4 (a difference that large by chance: about
// one in 16,000). The server runs in this process, on PGlite in memory, caches on.
import { Agent, request } from 'node:http';
import { startTestVault } from '../src/testing.ts';

const PAIRS = Number(process.env.TIMING_PAIRS ?? 1_000);
const WARMUP = 200;
const LIMIT_Z = 4;

const vault = await startTestVault({ cacheTtlMs: 60_000 });
try {
  const admin = vault.admin;
  const hiddenFolder = await vault.server.vault.db.query<{ id: number }>(
    "INSERT INTO folders (title) VALUES ('Hidden') RETURNING id",
  );
  const [hidden] = await vault.admin.addItems([
    {
      label: 'hidden',
      password: 'hidden-pw',
      description: '',
      folderId: String(hiddenFolder[0]!.id),
      login: '',
      email: '',
      url: '',
      tags: '',
      anyoneCanModify: '0',
    },
  ]);
  const missing = hidden! + 1_000_000;
  await admin.createUser({ login: 'probe' });
  const key = await admin.createKey({ label: 'probe key', login: 'probe' });
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const target = new URL(vault.url);
  const timed = (id: number): Promise<number> =>
    new Promise((resolve, reject) => {
      const started = process.hrtime.bigint();
      const req = request(
        {
          host: target.hostname,
          port: target.port,
          path: `/api/index.php/read/items/${id}`,
          headers: { authorization: `Bearer ${key}` },
          agent,
        },
        (res) => {
          res.resume();
          res.on('end', () => resolve(Number(process.hrtime.bigint() - started) / 1e6));
        },
      );
      req.on('error', reject);
      req.end();
    });
  // The admin's read leaves the hidden row in the item cache, as another key's read would.
  await timed(hidden!);
  await fetch(`${vault.url}/api/index.php/read/items/${hidden}`, {
    headers: { authorization: `Bearer ${vault.adminKey}` },
  });
  for (let i = 0; i < WARMUP; i++) await timed(i % 2 === 0 ? hidden! : missing);
  const differences: number[] = [];
  for (let i = 0; i < PAIRS; i++) {
    const hiddenFirst = Math.random() < 0.5;
    const first = await timed(hiddenFirst ? hidden! : missing);
    const second = await timed(hiddenFirst ? missing : hidden!);
    differences.push(hiddenFirst ? first - second : second - first);
  }
  agent.destroy();
  const mean = differences.reduce((sum, d) => sum + d, 0) / differences.length;
  const variance = differences.reduce((sum, d) => sum + (d - mean) ** 2, 0) / (differences.length - 1);
  const z = mean / Math.sqrt(variance / differences.length);
  process.stdout.write(
    `read/items, hidden minus missing: mean ${(mean * 1000).toFixed(1)} µs over ${PAIRS} pairs, z = ${z.toFixed(2)} (limit ${LIMIT_Z})\n`,
  );
  if (Math.abs(z) > LIMIT_Z) process.exitCode = 1;
} finally {
  await vault.close();
}
