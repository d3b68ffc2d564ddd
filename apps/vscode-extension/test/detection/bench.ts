// Secret-detection figures: precision and recall over the corpus, and the time to scan a
// 10,000-line file, against a baseline measured in the same run (one pass of a single regular
// expression over the same text: the least any scanner must do). The same figures for secretlint
// with its recommended preset, the maintained rule set the extension was weighed against.
// Plain Node (type stripping): the detector is host-free. `--check` exits non-zero when a goal is
// missed.
import { performance } from 'node:perf_hooks';
import { lintSource } from '@secretlint/core';
import { creator as recommended } from '@secretlint/secretlint-rule-preset-recommend';
import { startBenchmark } from '@vaultline/repo/benchmarks';
import { detectSecrets } from '../../src/secrets/detect-secrets.ts';
import { buildCorpus, score } from './corpus.ts';

const ROUNDS = 15;
const LINES = 10_000;
const bench = startBenchmark({
  id: 'vscode-extension-detection',
  package: 'vaultline-vscode',
  script: 'test/detection/bench.ts',
  command: 'pnpm --filter vaultline-vscode bench',
});

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

async function time(run: () => unknown): Promise<number> {
  const samples: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    const started = performance.now();
    await run();
    samples.push(performance.now() - started);
  }
  return median(samples);
}

/** secretlint over one text: the literal of each message (its range). */
async function secretlint(text: string, languageId: string): Promise<string[]> {
  const ext = { dotenv: '.env', yaml: '.yaml', json: '.json', python: '.py' }[languageId] ?? '.txt';
  const result = await lintSource({
    source: { content: text, filePath: `/corpus/file${ext}`, ext, contentType: 'text' },
    options: { config: { rules: [{ id: recommended.meta.id, rule: recommended }] }, noPhysicFilePath: true },
  });
  return result.messages.map((message) => text.slice(message.range[0], message.range[1]));
}

/** A 10,000-line file of ordinary code and config with the corpus's snippets spread through it. */
export function bigFile(): string {
  const corpus = buildCorpus();
  const snippets = [...corpus.positives, ...corpus.negatives].map((entry) => entry.text);
  const filler = [
    'export async function handler(request: Request, env: Env): Promise<Response> {',
    '  const url = new URL(request.url);',
    "  const token = request.headers.get('authorization')?.slice(7) ?? '';",
    '  if (!token) return new Response("missing token", { status: 401 });',
    '  const key = url.pathname + ":" + (url.searchParams.get("page") ?? 1);',
    '  const cached = await env.CACHE.get(key, { type: "json" });',
    '  return Response.json({ ok: true, cached, passwordPolicy: policy.describe() });',
    '}',
    'DB_HOST=db.internal # the primary',
    'password_min_length: 12',
  ];
  const lines: string[] = [];
  let i = 0;
  while (lines.length < LINES) {
    const snippet = i % 40 === 0 ? snippets[(i / 40) % snippets.length] : undefined;
    if (snippet) lines.push(...snippet.split('\n'));
    else lines.push(filler[i % filler.length] ?? '');
    i++;
  }
  return lines.slice(0, LINES).join('\n');
}

const corpus = buildCorpus();
const result = score(corpus, (text, languageId) =>
  detectSecrets(text, { languageId }).map((finding) => finding.secret),
);
const cases = [...corpus.positives, ...corpus.negatives];
const answers = new Map(
  await Promise.all(
    cases.map(async (entry) => [entry, await secretlint(entry.text, entry.languageId)] as const),
  ),
);
const theirs = score(corpus, (text) => answers.get(cases.find((entry) => entry.text === text)!) ?? []);
const text = bigFile();
detectSecrets(text, { languageId: 'typescript' }); // warm-up: compile the expressions
await secretlint(text, 'typescript');
const baseline = await time(() => text.match(/[A-Za-z_][A-Za-z0-9_]*\s*=/g)?.length);
const scan = await time(() => detectSecrets(text, { languageId: 'typescript' }));
const theirScan = await time(() => secretlint(text, 'typescript'));
const findings = detectSecrets(text, { languageId: 'typescript' }).length;

console.log(
  `BENCH detection corpus: ${corpus.positives.length} snippets with secrets, ${corpus.negatives.length} without`,
);
console.log(
  `BENCH precision ${result.precision.toFixed(3)} (goal ≥ 0.95), recall ${result.recall.toFixed(3)} (goal ≥ 0.9): ${result.truePositives} found, ${result.falsePositives} false alarms, ${result.falseNegatives} missed`,
);
for (const miss of result.misses) console.log(`BENCH   missed: ${miss}`);
for (const alarm of result.falseAlarms) console.log(`BENCH   false alarm: ${alarm}`);
console.log(
  `BENCH scan of a ${LINES}-line file (${(text.length / 1024).toFixed(0)} KiB, ${findings} findings): ${scan.toFixed(1)} ms (goal < 50 ms), ${(scan / baseline).toFixed(1)}× the baseline (one regex pass: ${baseline.toFixed(1)} ms), median of ${ROUNDS}`,
);
console.log(
  `BENCH secretlint + preset-recommend on the same corpus: precision ${theirs.precision.toFixed(3)}, recall ${theirs.recall.toFixed(3)} (${theirs.truePositives} found, ${theirs.falsePositives} false alarms, ${theirs.falseNegatives} missed); scan of the same file ${theirScan.toFixed(1)} ms, ${(theirScan / baseline).toFixed(1)}× the baseline`,
);
for (const alarm of theirs.falseAlarms) console.log(`BENCH   secretlint false alarm: ${alarm}`);
bench.record([
  {
    figure: `secret detection on the corpus (precision / recall), ${LINES.toLocaleString('en')}-line scan`,
    result: `${result.precision.toFixed(3)} / ${result.recall.toFixed(3)}, ${scan.toFixed(0)} ms (${(scan / baseline).toFixed(1)}× one regular-expression pass)`,
    goal: '≥ 0.95 / ≥ 0.9, < 50 ms',
  },
  {
    figure: 'secretlint with its recommended preset, same corpus and file',
    result: `${theirs.precision.toFixed(3)} / ${theirs.recall.toFixed(3)}, ${theirScan.toFixed(0)} ms`,
  },
]);

if (process.argv.includes('--check')) {
  const ok = result.precision >= 0.95 && result.recall >= 0.9 && scan < 50;
  if (!ok) process.exitCode = 1;
}
