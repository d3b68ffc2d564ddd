// Keyless sign-in, with plain `node bench/oidc.ts`, against a real Vaultline server and a local
// OIDC issuer (both in this process, on 127.0.0.1):
// - the exchange's latency over a warm key set (POST /api/auth/oidc, sequential, each with its own
//   token signed beforehand), p50 / p99;
// - how many times a fresh server fetches the issuer's discovery document and key set for 100
//   exchanges;
// - `vaultline run` of one reference signing in with an OIDC token (cold: a new cache directory,
//   so it exchanges; warm: the key cached by the previous command) against the baseline, the same
//   run with an API key, measured interleaved in the same run.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { exchangeOidcToken } from '@vaultline/protocol';
import { startTestIssuer, startTestVault } from '@vaultline/vault-server/testing';
import { cpu, ms, startCliBenchmark, type Timing, timed, wall } from './timing.ts';
import { startBenchVault } from './vault.ts';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 15);
const SAMPLES = 300;
const bench = startCliBenchmark('cli-oidc', 'bench/oidc.ts');
const CLI = join(import.meta.dirname, '..', 'dist', 'cli.js');
const OPERATOR = {
  principal: { kind: 'admin', keyLabel: '' },
  name: 'bench',
  keyLabel: '',
  address: 'bench',
} as const;
const CLAIMS = { aud: 'vaultline-bench', repository: 'acme/api', ref: 'refs/heads/main' };

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!;
const round = (value: number) => Math.round(value * 100) / 100;

const issuer = await startTestIssuer();
const policy = {
  name: 'bench',
  issuer: issuer.url,
  audience: CLAIMS.aud,
  claims: { repository: 'acme/api', ref: 'refs/heads/*' },
  login: 'bench',
  ttlSeconds: 3600,
};
const { vault, admin, folderId } = await startBenchVault();
const home = await mkdtemp(join(tmpdir(), 'vaultline-bench-oidc-'));
try {
  await vault.server.vault.adminAs(OPERATOR).addTrustPolicy(policy);

  // Latency over a warm key set.
  const tokens = await Promise.all(Array.from({ length: SAMPLES + 50 }, () => issuer.sign(CLAIMS)));
  const times: number[] = [];
  for (const [index, token] of tokens.entries()) {
    const started = performance.now();
    await exchangeOidcToken({ baseUrl: vault.url, token });
    if (index >= 50) times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  const latency = { p50: round(percentile(times, 0.5)), p99: round(percentile(times, 0.99)) };
  console.log(`exchange over a warm key set: p50 ${latency.p50} ms, p99 ${latency.p99} ms`);

  // Fetches of a fresh server for 100 exchanges.
  const fresh = await startTestVault();
  const before = { ...issuer.fetches };
  await fresh.admin.createUser({ login: 'bench' });
  await fresh.server.vault.adminAs(OPERATOR).addTrustPolicy(policy);
  for (let i = 0; i < 100; i++)
    await exchangeOidcToken({ baseUrl: fresh.url, token: await issuer.sign(CLAIMS) });
  const fetches = {
    discovery: issuer.fetches.discovery - before.discovery,
    jwks: issuer.fetches.jwks - before.jwks,
  };
  await fresh.close();
  console.log(
    `100 exchanges on a fresh server: ${fetches.discovery} discovery, ${fetches.jwks} JWKS fetch(es)`,
  );

  // `vaultline run` with a key, with a token (cold), with a token (warm).
  const { id } = await admin.items.create({ label: 'bench', password: 'Bench-Secret-Oidc-1', folderId });
  const key = await vault.admin.createKey({ label: 'bench-run', login: 'bench' });
  const base = {
    PATH: process.env.PATH ?? '',
    HOME: home,
    XDG_CONFIG_HOME: join(home, 'config'),
    VAULTLINE_URL: vault.url,
    DB: `vaultline://${id}/password`,
  };
  const run = [CLI, 'run', '--', process.execPath, '-e', '0'];
  let round_ = 0;
  const envs = {
    key: async () => ({ ...base, VAULTLINE_API_KEY: key, VAULTLINE_LOGIN: 'bench' }),
    oidcCold: async () => ({
      ...base,
      VAULTLINE_OIDC_TOKEN: await issuer.sign(CLAIMS),
      VAULTLINE_CACHE_DIR: join(home, `cold-${++round_}`),
    }),
    oidcWarm: async () => ({
      ...base,
      VAULTLINE_OIDC_TOKEN: warmToken,
      VAULTLINE_CACHE_DIR: join(home, 'warm'),
    }),
  };
  const warmToken = await issuer.sign(CLAIMS);
  const results: Record<keyof typeof envs, Timing[]> = { key: [], oidcCold: [], oidcWarm: [] };
  const names = Object.keys(envs) as (keyof typeof envs)[];
  for (const name of names) await timed(process.execPath, run, await envs[name]());
  for (let r = 0; r < ROUNDS; r++)
    for (const name of names) results[name].push(await timed(process.execPath, run, await envs[name]()));
  const added = (name: keyof typeof envs) =>
    `+${(wall(results[name]) - wall(results.key)).toFixed(1)} ms wall, +${(cpu(results[name]) - cpu(results.key)).toFixed(1)} ms CPU`;
  for (const name of names)
    console.log(`${name.padEnd(9)} wall ${ms(wall(results[name]))}  cpu ${ms(cpu(results[name]))}`);

  bench.record(
    [
      {
        figure: 'OIDC exchange over a warm key set (POST /api/auth/oidc, sequential), p50 / p99',
        result: `${latency.p50} / ${latency.p99} ms`,
      },
      {
        figure: 'fetches of the issuer by a fresh server for 100 exchanges (discovery / JWKS)',
        result: `${fetches.discovery} / ${fetches.jwks}`,
        goal: '1 / 1',
      },
      {
        figure:
          'vaultline run of 1 reference signing in with an OIDC token, added time over an API key (cold: exchanges; warm: cached key), median',
        result: `cold ${added('oidcCold')}; warm ${added('oidcWarm')} (with a key ${wall(results.key).toFixed(1)} ms wall, ${cpu(results.key).toFixed(1)} ms CPU)`,
      },
    ],
    { rounds: ROUNDS, 'latency samples': SAMPLES },
  );
} finally {
  await rm(home, { recursive: true, force: true });
  await vault.close();
  await issuer.close();
}
