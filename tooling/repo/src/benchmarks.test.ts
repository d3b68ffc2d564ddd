import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import {
  BENCHMARKS_DOC,
  type BenchmarkRecord,
  RECORDS_DIR,
  readBenchmarkRecords,
  renderBenchmarks,
  startBenchmark,
} from './benchmarks.ts';

const made: string[] = [];
afterAll(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});
afterEach(() => {
  vi.unstubAllEnvs();
});

function emptyRoot(): string {
  const root = mkdtempSync(join(tmpdir(), 'vaultline-bench-docs-'));
  made.push(root);
  mkdirSync(join(root, RECORDS_DIR), { recursive: true });
  return root;
}

const identity = {
  id: 'cli',
  package: '@vaultline/cli',
  script: 'bench/run.ts',
  command: 'pnpm --filter @vaultline/cli bench',
};

const record: BenchmarkRecord = {
  package: '@vaultline/protocol',
  script: 'bench/run.ts',
  command: 'pnpm --filter @vaultline/protocol bench',
  date: '2026-11-23',
  machine: { cores: 2, node: '24.21.0', loadAtStart: 0.25 },
  settings: { rounds: 30 },
  figures: [
    { figure: 'parse | validate', result: '1.24×', goal: '≤ 2×' },
    { figure: 'codec', result: '159 MB/s' },
  ],
};

describe('startBenchmark', () => {
  it('records the day, the machine, the settings and the figures, and rebuilds the page from every record', () => {
    const root = emptyRoot();
    const run = startBenchmark({ ...identity, root, now: () => new Date('2026-11-24T10:00:00Z') });
    const path = run.record([{ figure: 'overhead', result: '130 ms', goal: '< 150 ms' }], { rounds: 15 });
    expect(path).toBe(join(root, RECORDS_DIR, 'cli.json'));
    const [written] = readBenchmarkRecords(root);
    expect(written?.id).toBe('cli');
    expect(written?.record).toMatchObject({
      package: identity.package,
      script: identity.script,
      command: identity.command,
      date: '2026-11-24',
      settings: { rounds: 15 },
      figures: [{ figure: 'overhead', result: '130 ms', goal: '< 150 ms' }],
    });
    expect(written?.record.machine.node).toBe(process.versions.node);
    expect(written?.record.machine.cores).toBeGreaterThan(0);
    expect(written?.record.machine.loadAtStart).toBeGreaterThanOrEqual(0);
    const page = readFileSync(join(root, BENCHMARKS_DOC), 'utf8');
    expect(page).toBe(renderBenchmarks(readBenchmarkRecords(root)));
    expect(page).toContain('| overhead | 130 ms | < 150 ms |');
  });

  it('keeps what BENCH_NOTE says about the run, and shows it on the page', () => {
    vi.stubEnv('BENCH_NOTE', 'Node itself starts in 45 ms here');
    const root = emptyRoot();
    startBenchmark({ ...identity, root }).record([{ figure: 'overhead', result: '200 ms' }]);
    expect(readBenchmarkRecords(root)[0]?.record.machine.note).toBe('Node itself starts in 45 ms here');
    expect(readFileSync(join(root, BENCHMARKS_DOC), 'utf8')).toContain('Node itself starts in 45 ms here');
  });

  it('records the last release measured beside the code, and the page names it', () => {
    const root = emptyRoot();
    startBenchmark({ ...identity, root }).record(
      [{ figure: 'x', result: '0.97× the release' }],
      {},
      {
        name: '0.1.0',
        short: '9d5f489',
      },
    );
    expect(readBenchmarkRecords(root)[0]?.record.release).toEqual({ name: '0.1.0', commit: '9d5f489' });
    expect(readFileSync(join(root, BENCHMARKS_DOC), 'utf8')).toContain(
      'Beside the last release, 0.1.0 (`9d5f489`), built and measured in the same run.',
    );
  });

  it('writes nothing with BENCH_RECORD=0', () => {
    vi.stubEnv('BENCH_RECORD', '0');
    const root = emptyRoot();
    expect(startBenchmark({ ...identity, root }).record([{ figure: 'x', result: 'y' }])).toBeUndefined();
    expect(readdirSync(join(root, RECORDS_DIR))).toEqual([]);
  });

  it('refuses an id that is not a file name of lower-case words', () => {
    expect(() => startBenchmark({ ...identity, id: '../escape' })).toThrow(/lower-case words/);
  });
});

describe('readBenchmarkRecords', () => {
  it('names the file and the field of a record that is not valid', () => {
    const root = emptyRoot();
    writeFileSync(join(root, RECORDS_DIR, 'bad.json'), JSON.stringify({ ...record, figures: [] }));
    expect(() => readBenchmarkRecords(root)).toThrow(`${RECORDS_DIR}/bad.json: figures:`);
  });
});

describe('renderBenchmarks', () => {
  it('gives each record a section: command, day, machine, settings, and a table of its figures', () => {
    const page = renderBenchmarks([{ id: 'protocol', record }]);
    expect(page).toContain('## @vaultline/protocol: `bench/run.ts`');
    expect(page).toContain('Recorded 2026-11-23 on 2 cores, Node 24.21.0, load average 0.25 at the start.');
    expect(page).toContain('Settings: rounds 30.');
    expect(page).toContain('| parse \\| validate | 1.24× | ≤ 2× |');
    expect(page).toContain('| codec | 159 MB/s | — |');
  });

  it('changes when a record changes, so a page edited by hand or left stale is told apart', () => {
    const changed = { ...record, figures: [{ figure: 'codec', result: '160 MB/s' }] };
    expect(renderBenchmarks([{ id: 'protocol', record: changed }])).not.toBe(
      renderBenchmarks([{ id: 'protocol', record }]),
    );
  });
});
