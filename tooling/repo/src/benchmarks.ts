/**
 * Benchmark figures as the benches record them, and `docs/benchmarks.md` built from them. Each
 * bench script ends with {@link startBenchmark}'s `record(figures)`: it writes its record to
 * `docs/benchmarks/<id>.json` (date, machine, settings, figures) and regenerates the page, so the
 * page always shows what the benches last measured and is never edited by hand.
 *
 * @module
 */

import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { arch, availableParallelism, cpus, loadavg, platform, release, totalmem } from 'node:os';
import { join } from 'node:path';
import * as v from 'valibot';
import { LAST_RELEASE_FILE } from './release.ts';
import { REPO_ROOT } from './repo-files.ts';

/** Where the records live, relative to the repository root. */
export const RECORDS_DIR = 'docs/benchmarks';
/** The page built from them. */
export const BENCHMARKS_DOC = 'docs/benchmarks.md';
/** The command that rebuilds the page from the records. */
export const GENERATE_COMMAND = 'pnpm bench:docs';

/** One figure: what was measured, the result against its baseline, and the goal. */
const FigureSchema = v.object({
  /** What was measured and against which baseline. */
  figure: v.pipe(v.string(), v.minLength(1)),
  /** The result, as the bench words it (ratios, times, rates). */
  result: v.pipe(v.string(), v.minLength(1)),
  /** The goal, when there is one. */
  goal: v.optional(v.string()),
});

/** The machine a run was on. */
const MachineSchema = v.object({
  /** Cores available to the process. */
  cores: v.pipe(v.number(), v.integer(), v.minValue(1)),
  /** Node's version. */
  node: v.string(),
  /** The CPU model. */
  cpu: v.optional(v.string()),
  /** Memory, in GiB. */
  memoryGiB: v.optional(v.number()),
  /** Operating system, architecture and kernel. */
  os: v.optional(v.string()),
  /** The one-minute load average when the run started: how busy the machine was. */
  loadAtStart: v.optional(v.number()),
  /** Anything else said about it ("a quiet machine"). */
  note: v.optional(v.string()),
});

/** What one bench script recorded. */
export const BenchmarkRecordSchema = v.object({
  /** The package, e.g. `@vaultline/protocol`. */
  package: v.pipe(v.string(), v.minLength(1)),
  /** The script that measured, relative to the package, e.g. `bench/run.ts`. */
  script: v.pipe(v.string(), v.minLength(1)),
  /** How to run it. */
  command: v.pipe(v.string(), v.minLength(1)),
  /** The day of the run, `YYYY-MM-DD`. */
  date: v.pipe(v.string(), v.isoDate()),
  /** The machine. */
  machine: MachineSchema,
  /** Settings of the run that change its figures (rounds, durations, sizes). */
  settings: v.optional(v.record(v.string(), v.union([v.string(), v.number()]))),
  /** Where the figures come from, when not from a run of this script as it is now. */
  source: v.optional(v.string()),
  /** The last release, when the run measured it beside the current code (`release.ts`). */
  release: v.optional(
    v.object({ name: v.string(), commit: v.pipe(v.string(), v.regex(/^[0-9a-f]{7,40}$/)) }),
  ),
  /** The figures. */
  figures: v.pipe(v.array(FigureSchema), v.minLength(1)),
});

/** What one bench script recorded. */
export type BenchmarkRecord = v.InferOutput<typeof BenchmarkRecordSchema>;
/** One figure of a record. */
export type Figure = v.InferOutput<typeof FigureSchema>;

/** A record's file name inside {@link RECORDS_DIR}: `<id>.json`. */
const ID = /^[a-z0-9][a-z0-9-]*$/;

/**
 * Reads every record, in the order of their ids.
 *
 * @param root The repository root.
 * @returns The records with their ids.
 * @throws Error naming the file when a record is not valid JSON of {@link BenchmarkRecordSchema}.
 */
export function readBenchmarkRecords(root: string = REPO_ROOT): { id: string; record: BenchmarkRecord }[] {
  const dir = join(root, RECORDS_DIR);
  return readdirSync(dir)
    .filter((name) => name.endsWith('.json'))
    .map((name) => name.slice(0, -'.json'.length))
    .sort()
    .map((id) => {
      const name = `${id}.json`;
      const parsed = v.safeParse(BenchmarkRecordSchema, JSON.parse(readFileSync(join(dir, name), 'utf8')));
      if (!parsed.success) {
        const issue = parsed.issues[0];
        throw new Error(`${RECORDS_DIR}/${name}: ${v.getDotPath(issue) ?? 'record'}: ${issue.message}`);
      }
      return { id, record: parsed.output };
    });
}

const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');

function describeMachine(record: BenchmarkRecord): string {
  const m = record.machine;
  const parts = [
    m.os,
    `${m.cores} core${m.cores === 1 ? '' : 's'}${m.cpu ? ` (${m.cpu})` : ''}`,
    m.memoryGiB === undefined ? undefined : `${m.memoryGiB} GiB`,
    `Node ${m.node}`,
    m.loadAtStart === undefined ? undefined : `load average ${m.loadAtStart.toFixed(2)} at the start`,
    m.note,
  ];
  return parts.filter((part) => part !== undefined && part !== '').join(', ');
}

/**
 * Renders the page from the records.
 *
 * @param records The records, in the order to show them.
 * @returns The Markdown of `docs/benchmarks.md`.
 */
export function renderBenchmarks(records: readonly { id: string; record: BenchmarkRecord }[]): string {
  const lines = [
    '# Benchmarks',
    '',
    `<!-- Generated from ${RECORDS_DIR}/*.json by \`${GENERATE_COMMAND}\`; each package's \`pnpm bench\` writes its record and regenerates this page. Do not edit by hand. -->`,
    '',
    'Every figure is measured against a baseline in the same run, never by a timed test: a ratio to',
    'the baseline, or the baseline named beside the result. Each section is one bench script, as its',
    `last recorded run left it in [\`${RECORDS_DIR}/\`](benchmarks/): the day, the machine (how many cores,`,
    'how busy when the run started) and the settings of the run. Run a bench to refresh its section;',
    'commit the record and this page together, from a quiet machine.',
    '',
    'A section that names the last release measured it beside the current code in the same run: the',
    `release's commit is the one in \`${LAST_RELEASE_FILE}\` (the repository has no tags), its tree`,
    'built once in the OS temp dir. A ratio to the release above 1 on a hot path is a regression.',
  ];
  for (const { id, record } of records) {
    lines.push('', `## ${record.package}: \`${record.script}\``, '');
    lines.push(`\`${record.command}\` (record \`${RECORDS_DIR}/${id}.json\`)`, '');
    lines.push(`Recorded ${record.date} on ${describeMachine(record)}.`);
    const settings = Object.entries(record.settings ?? {});
    if (settings.length > 0) {
      lines.push(`Settings: ${settings.map(([name, value]) => `${name} ${value}`).join(', ')}.`);
    }
    if (record.source !== undefined) lines.push(`Source: ${record.source}.`);
    if (record.release !== undefined) {
      lines.push(
        `Beside the last release, ${record.release.name} (\`${record.release.commit}\`), built and measured in the same run.`,
      );
    }
    lines.push('', '| figure | result | goal |', '|---|---|---|');
    for (const figure of record.figures) {
      lines.push(`| ${cell(figure.figure)} | ${cell(figure.result)} | ${cell(figure.goal ?? '—')} |`);
    }
  }
  return `${lines.join('\n')}\n`;
}

/**
 * Rebuilds `docs/benchmarks.md` from the records.
 *
 * @param root The repository root.
 * @returns The page's path.
 */
export function writeBenchmarksDoc(root: string = REPO_ROOT): string {
  const path = join(root, BENCHMARKS_DOC);
  writeFileSync(path, renderBenchmarks(readBenchmarkRecords(root)));
  return path;
}

/** What {@link startBenchmark} needs to know about the bench. */
export interface BenchmarkIdentity {
  /** The record's id, its file name without `.json`: `protocol`, `slack-bot-request-flood`. */
  id: string;
  /** The package, e.g. `@vaultline/protocol`. */
  package: string;
  /** The script, relative to the package, e.g. `bench/run.ts`. */
  script: string;
  /** How to run it, e.g. `pnpm --filter @vaultline/protocol bench`. */
  command: string;
  /** The repository root; this package's by default. */
  root?: string | undefined;
  /** The clock, for tests. */
  now?: (() => Date) | undefined;
}

/** A bench in progress: records its figures once it has them. */
export interface BenchmarkRun {
  /**
   * Writes the record and regenerates `docs/benchmarks.md`, unless `BENCH_RECORD=0`.
   *
   * @param figures The figures.
   * @param settings The settings of the run that change its figures.
   * @param release The last release, when the run measured it too.
   * @returns The record's path, or `undefined` when recording is off.
   */
  record(
    figures: readonly Figure[],
    settings?: Readonly<Record<string, string | number>>,
    release?: { readonly name: string; readonly short: string },
  ): string | undefined;
}

/**
 * Starts a bench: notes the day and the machine, with its load before the bench adds its own.
 *
 * @param identity Which bench.
 * @returns The run, to record its figures at the end.
 * @example
 * ```ts
 * const run = startBenchmark({ id: 'cli', package: '@vaultline/cli', script: 'bench/run.ts', command: 'pnpm --filter @vaultline/cli bench' });
 * // … measure …
 * run.record([{ figure: 'overhead of vaultline run', result: '130 ms', goal: '< 150 ms' }], { rounds: 15 });
 * ```
 */
export function startBenchmark(identity: BenchmarkIdentity): BenchmarkRun {
  if (!ID.test(identity.id))
    throw new Error(`A benchmark id is lower-case words joined by '-', not "${identity.id}".`);
  const root = identity.root ?? REPO_ROOT;
  const started = (identity.now ?? (() => new Date()))();
  const machine = {
    os: `${platform()} ${arch()} ${release()}`,
    cores: availableParallelism(),
    cpu: cpus()[0]?.model.trim().replace(/\s+/g, ' '),
    memoryGiB: Math.round((totalmem() / 2 ** 30) * 10) / 10,
    node: process.versions.node,
    loadAtStart: Math.round(loadavg()[0]! * 100) / 100,
    // What the figures alone do not say about the run (`BENCH_NOTE="…" pnpm bench`).
    ...(process.env.BENCH_NOTE ? { note: process.env.BENCH_NOTE } : {}),
  };
  return {
    record(figures, settings, release) {
      if (process.env.BENCH_RECORD === '0') {
        process.stdout.write(`(not recorded: BENCH_RECORD=0)\n`);
        return undefined;
      }
      const record: BenchmarkRecord = v.parse(BenchmarkRecordSchema, {
        package: identity.package,
        script: identity.script,
        command: identity.command,
        date: started.toISOString().slice(0, 10),
        machine,
        ...(settings && Object.keys(settings).length > 0 ? { settings: { ...settings } } : {}),
        figures: figures.map((figure) => ({ ...figure })),
        ...(release ? { release: { name: release.name, commit: release.short } } : {}),
      });
      const path = join(root, RECORDS_DIR, `${identity.id}.json`);
      writeFileSync(path, `${JSON.stringify(record, null, 2)}\n`);
      writeBenchmarksDoc(root);
      process.stdout.write(`recorded in ${RECORDS_DIR}/${identity.id}.json and ${BENCHMARKS_DOC}\n`);
      return path;
    },
  };
}
