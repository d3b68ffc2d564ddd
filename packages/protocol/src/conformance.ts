/**
 * The conformance suite: exercises every operation of the endpoint table against a live server,
 * in a folder of its own that it creates and removes, and reports each operation pass or fail.
 * It runs through the one `WireClient`, so a TeamPass 3 server is checked by the same main flow
 * as a legacy one. The main flow uses text of the BMP only, so that it runs on any server; what
 * servers differ on (characters outside the BMP, file endpoints, full-text search, the key in a
 * header, reading another user's data, multi-id reads, URL lookup, the scope of tags) is checked
 * on its own and reported as a finding of one line each.
 *
 * One step per function in `conformance/`: `operations.ts` (one per operation of the table),
 * `checks.ts` (one per optional behaviour), `steps.ts` (the table they run in); this file runs
 * the table.
 *
 * @module
 */

import type { WireClient } from './client/types.ts';
import { found, type Run, randomToken, record, runOperation, type Step } from './conformance/run.ts';
import { STEPS } from './conformance/steps.ts';
import {
  CONFORMANCE_CHECKS,
  type ConformanceOptions,
  type ConformanceReport,
  type ConformanceResult,
} from './conformance/types.ts';
import { ENDPOINT_NAMES, type EndpointName, endpoints } from './legacy/endpoints.ts';
import type { RequestEvent } from './transport/transport.ts';
import { credentialsFrom } from './vault/credentials.ts';
import { createWireClient } from './vault/wire-client.ts';

export { formatFindings } from './conformance/report.ts';
export {
  CONFORMANCE_CHECKS,
  type ConformanceCheck,
  type ConformanceFinding,
  type ConformanceOptions,
  type ConformanceReport,
  type ConformanceResult,
  type FindingOutcome,
} from './conformance/types.ts';

/** Leaves nothing behind, whatever failed. */
async function cleanUp(run: Run): Promise<void> {
  const { client, state } = run;
  if (state.itemIds.length > 0) await client.deleteItems({ ids: state.itemIds }).catch(() => {});
  if (state.folderId !== undefined) await client.deleteFolders({ ids: [state.folderId] }).catch(() => {});
}

/** A run's shared state: the client (no retries, every request recorded) and what it writes. */
async function startRun(options: ConformanceOptions): Promise<Run> {
  const events: RequestEvent[] = [];
  const client: WireClient = createWireClient({
    baseUrl: options.baseUrl,
    auth: credentialsFrom({
      apiKey: options.apiKey,
      login: options.login,
      password: options.password,
      personalAccessToken: options.personalAccessToken,
    }),
    dialect: options.dialect,
    fetch: options.fetch,
    retry: { retries: 0 },
    onRequest: (event) => events.push(event),
  });
  const capabilities = await client.capabilities().catch(() => undefined);
  const token = randomToken();
  return {
    client,
    options,
    capabilities,
    events,
    files: options.files ?? true,
    token,
    folderTitle: `vaultline-conformance-${token}`,
    // The main flow stays in the BMP: TeamPass's default 3-byte tables refuse anything else, which
    // is its own check.
    label: `conf ${token} Ünïcødé ✓ ;/+=% end`,
    secondLabel: `conf ${token} second`,
    password: `pw;/+=%\n\u0000✓${token}`,
    emojiLabel: `conf ${token} emoji 😀 🔑`,
    payload: new Uint8Array([0, 1, 2, 255, ...new TextEncoder().encode(`conformance ✓ ${token}\n`)]),
    state: { itemIds: [] },
    results: new Map(),
    findings: [],
  };
}

/** Runs one step of the table: an operation or a check, or says why it did not run. */
async function runStep(run: Run, step: Step): Promise<void> {
  const { refused } = run.state;
  if ('endpoint' in step) {
    if (step.when !== undefined && !step.when(run)) return;
    if (refused === undefined) return runOperation(run, step);
    const operation = endpoints[step.endpoint].operation;
    return record(run, { endpoint: step.endpoint, operation, ok: undefined, detail: `not run: ${refused}` });
  }
  const why = refused ?? step.unless(run);
  // A check another step already reported on (files: absent) keeps that line.
  if (why === undefined) await step.run(run);
  else if (!run.findings.some((finding) => finding.check === step.check))
    found(run, step.check, 'not-run', `not run: ${why}`);
}

/** What the report says of each operation its step's `when` can leave out. */
const LEFT_OUT: ReadonlyMap<EndpointName, string> = new Map(
  STEPS.flatMap((step) =>
    'endpoint' in step && step.leftOut !== undefined ? [[step.endpoint, step.leftOut] as const] : [],
  ),
);

/** The report: a result per operation in table order (those left out say why), the findings in check order. */
function reportOf(run: Run): ConformanceReport {
  const results = ENDPOINT_NAMES.map(
    (endpoint): ConformanceResult =>
      run.results.get(endpoint) ?? {
        endpoint,
        operation: endpoints[endpoint].operation,
        ok: undefined,
        detail: LEFT_OUT.get(endpoint) ?? 'not run',
      },
  );
  const findings = run.findings.sort(
    (a, b) => CONFORMANCE_CHECKS.indexOf(a.check) - CONFORMANCE_CHECKS.indexOf(b.check),
  );
  return {
    ok: results.every((result) => result.ok !== false) && findings.every((f) => f.outcome !== 'failed'),
    results,
    findings,
    capabilities: run.capabilities,
  };
}

/**
 * Runs the conformance suite.
 *
 * @param options The server, key and login.
 * @returns The report; never throws for a failing server.
 * @example
 * ```ts
 * const report = await runConformance({ baseUrl, apiKey, login: 'admin' });
 * for (const r of report.results) console.log(r.ok ? 'PASS' : 'FAIL', r.operation, r.detail);
 * ```
 */
export async function runConformance(options: ConformanceOptions): Promise<ConformanceReport> {
  const run = await startRun(options);
  try {
    for (const step of STEPS) await runStep(run, step);
  } finally {
    await cleanUp(run);
    await run.client.dispose().catch(() => {});
  }
  return reportOf(run);
}
