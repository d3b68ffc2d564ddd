// Throughput of `vaultline run`'s output masking, with plain `node bench/mask.ts`: the masker
// against the named baseline "pass-through" (a Transform that copies its chunks), on the same
// output in the same run. A child that prints a lot (a build log, a test run) streams through the
// masker, so it must not be what slows the command down.
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { startBenchmark } from '@vaultline/repo/benchmarks';
import { createMasker, maskNeedles } from '../src/mask.ts';
import { median } from './timing.ts';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 7);
const MIB = 1024 * 1024;
const bench = startBenchmark({
  id: 'cli-mask',
  package: '@vaultline/cli',
  script: 'bench/mask.ts',
  command: 'pnpm --filter @vaultline/cli bench',
});

/** 8 MiB of 80-byte log lines in 64 KiB chunks (a pipe's), one line in 50 holding a value. */
function output(values: readonly string[]): Buffer[] {
  const lines: string[] = [];
  let size = 0;
  for (let i = 0; size < 8 * MIB; i++) {
    const secret = i % 50 === 0 ? ` token=${values[i % values.length]}` : '';
    const line = `${new Date(1_700_000_000_000 + i).toISOString()} info step ${i} done${secret}`.padEnd(
      79,
      '.',
    );
    lines.push(`${line}\n`);
    size += line.length + 1;
  }
  const data = Buffer.from(lines.join(''));
  const chunks: Buffer[] = [];
  for (let at = 0; at < data.length; at += 64 * 1024) chunks.push(data.subarray(at, at + 64 * 1024));
  return chunks;
}

async function throughput(chunks: readonly Buffer[], transform: () => Transform): Promise<number> {
  const bytes = chunks.reduce((sum, chunk) => sum + chunk.length, 0);
  const rates: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const started = performance.now();
    await pipeline(chunks, transform(), async (source: AsyncIterable<Buffer>) => {
      for await (const _ of source);
    });
    rates.push(bytes / MIB / ((performance.now() - started) / 1000));
  }
  return median(rates);
}

const passThrough = () =>
  new Transform({
    transform(chunk, _encoding, callback) {
      callback(null, chunk);
    },
  });

const passwords = Array.from({ length: 10 }, (_, i) => `Bench-Secret-${i}-Zq9!x`);
const cases = [
  { name: '10 passwords of 20 characters', values: passwords },
  {
    name: '10 passwords and a 4 KiB private key',
    values: [
      ...passwords,
      `-----BEGIN KEY-----\n${'MIIEvQIBADANBgkqhkiG9w0BAQEFAASC'.repeat(128)}\n-----END KEY-----`,
    ],
  },
];

const figures = [];
console.log(`vaultline run output masking, 8 MiB of 80-byte lines, ${ROUNDS} rounds, medians:`);
for (const { name, values } of cases) {
  const chunks = output(values);
  const needles = maskNeedles(values);
  await throughput(chunks.slice(0, 16), () => createMasker(needles)); // warm-up
  const base = await throughput(chunks, passThrough);
  const masked = await throughput(chunks, () => createMasker(needles));
  const ratio = masked / base;
  console.log(
    `  ${name.padEnd(40)} masker ${masked.toFixed(0).padStart(6)} MiB/s, pass-through ${base.toFixed(0).padStart(6)} MiB/s, ratio ${ratio.toFixed(3)}`,
  );
  figures.push({
    figure: `\`vaultline run\` output masking, ${name}, vs a pass-through stream`,
    result: `${masked.toFixed(0)} MiB/s (${ratio.toFixed(3)}× the pass-through's ${base.toFixed(0)} MiB/s)`,
  });
}
bench.record(figures, { rounds: ROUNDS, output: '8 MiB, 80-byte lines, 64 KiB chunks' });
