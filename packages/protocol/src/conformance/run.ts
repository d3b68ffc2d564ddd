/**
 * What the steps of one conformance run share, and how a step's outcome is recorded: a result per
 * operation (not run, skipped, passed, failed), a finding per optional check.
 *
 * @module
 */

import type { ServerCapabilities } from '../capabilities.ts';
import type { WireClient } from '../client/types.ts';
import { isVaultError, serverWordsOf, toVaultError } from '../errors.ts';
import { type EndpointName, endpoints } from '../legacy/endpoints.ts';
import type { RequestEvent } from '../transport/transport.ts';
import type {
  ConformanceCheck,
  ConformanceFinding,
  ConformanceOptions,
  ConformanceResult,
  FindingOutcome,
} from './types.ts';

/** What TeamPass does for each check: such an outcome is a known limit, not a defect. */
export const TEAMPASS_LIMITS: Readonly<Record<ConformanceCheck, readonly FindingOutcome[]>> = {
  'four-byte-text': ['refuses', 'mangles'],
  files: ['absent'],
  'full-text-search': ['refuses'],
  'key-header': ['refuses'],
  'other-users': ['absent'],
  'multi-id-reads': ['absent'],
  'url-lookup': [],
  'tags-scope': ['leaks'],
};

export class CheckFailed extends Error {
  override name = 'CheckFailed';
}

/** Thrown by a step that does not apply to this server: reported as skipped, not failed. */
export class Skipped extends Error {
  override name = 'Skipped';
}

export function check(condition: boolean, message: string): asserts condition {
  if (!condition) throw new CheckFailed(message);
}

export function randomToken(): string {
  return Math.random().toString(36).slice(2, 10);
}

/** What the steps of one run share. */
export interface Run {
  readonly client: WireClient;
  readonly options: ConformanceOptions;
  /** What the client learnt of the server before the first step. */
  readonly capabilities: ServerCapabilities | undefined;
  /** Every request the client made, redacted: checks count them. */
  readonly events: RequestEvent[];
  /** Whether the file operations are tested. */
  readonly files: boolean;
  /** Unique to the run, in everything it creates. */
  readonly token: string;
  // What the main flow writes and expects back, each holding the token.
  readonly folderTitle: string;
  readonly label: string;
  readonly secondLabel: string;
  readonly password: string;
  readonly emojiLabel: string;
  readonly payload: Uint8Array;
  /**
   * What earlier steps created: later steps use it, the clean-up removes it; `refused` says that
   * the server refused the sign-in (or the key), which stops the run.
   */
  readonly state: { folderId?: number; itemIds: number[]; fileId?: number; refused?: string };
  /** The result of each operation that ran. */
  readonly results: Map<EndpointName, ConformanceResult>;
  /** The findings, in the order they were made. */
  readonly findings: ConformanceFinding[];
}

/** One operation of the table, checked; run when the operations it needs passed. */
export interface OperationStep {
  /** The operation. */
  readonly endpoint: EndpointName;
  /** What must have passed first; when one of them was skipped, this one is skipped too. */
  readonly needs: readonly EndpointName[];
  /** Whether the run includes it; always when absent. */
  readonly when?: (run: Run) => boolean;
  /** What the report says of it when `when` leaves it out. */
  readonly leftOut?: string;
  /** Checks the operation; returns what was checked, throws what failed. */
  readonly run: (run: Run) => Promise<string>;
}

/** One optional behaviour, checked on its own: it reports findings, never a result. */
export interface CheckStep {
  /** The behaviour. */
  readonly check: ConformanceCheck;
  /** Why the run cannot make the check (reported as `not-run`); `undefined` when it can. */
  readonly unless: (run: Run) => string | undefined;
  /** Checks the behaviour and reports what the server does with {@link found}. */
  readonly run: (run: Run) => Promise<void>;
}

export type Step = OperationStep | CheckStep;

export function passed(run: Run, endpoint: EndpointName): boolean {
  return run.results.get(endpoint)?.ok === true;
}

export function record(run: Run, result: ConformanceResult): void {
  run.results.set(result.endpoint, result);
  run.options.onResult?.(result);
}

export function found(run: Run, check: ConformanceCheck, outcome: FindingOutcome, detail: string): void {
  const finding: ConformanceFinding = {
    check,
    outcome,
    detail: run.client.redact(detail),
    knownTeamPassLimit: TEAMPASS_LIMITS[check].includes(outcome),
  };
  run.findings.push(finding);
  run.options.onFinding?.(finding);
}

/** The server's words about an error, or its code: for one line. */
export function said(run: Run, error: unknown): string {
  const words = serverWordsOf(error, run.client.redact, 100);
  const vaultError = toVaultError(error, run.client.redact);
  return `${vaultError.code}${vaultError.status === undefined ? '' : ` (HTTP ${vaultError.status})`}${words ? `: "${words}"` : ''}`;
}

/** Runs one operation step and reports its result: not run, skipped, passed or failed. */
export async function runOperation(run: Run, step: OperationStep): Promise<void> {
  const { endpoint } = step;
  const operation = endpoints[endpoint].operation;
  // A step whose prerequisite was skipped (no file endpoints) is skipped for the same reason.
  const skipped = step.needs
    .map((name) => run.results.get(name))
    .find((result) => result && result.ok === undefined);
  if (skipped) return record(run, { endpoint, operation, ok: undefined, detail: skipped.detail });
  const missing = step.needs.filter((name) => !passed(run, name));
  if (missing.length > 0) {
    return record(run, {
      endpoint,
      operation,
      ok: false,
      detail: `not run: needs ${missing.map((name) => endpoints[name].operation).join(', ')}`,
    });
  }
  try {
    record(run, { endpoint, operation, ok: true, detail: await step.run(run) });
  } catch (error) {
    const { redact } = run.client;
    const message =
      error instanceof CheckFailed || error instanceof Skipped
        ? error.message
        : `${toVaultError(error, redact).code}: ${redact(error instanceof Error ? error.message : String(error))}`;
    record(run, { endpoint, operation, ok: error instanceof Skipped ? undefined : false, detail: message });
    // Each sign-in TeamPass refuses counts toward locking the address out: one try is enough.
    if (isVaultError(error, 'unauthorized'))
      run.state.refused = `the server refused the sign-in or the key at ${operation}`;
  }
}

/** Why a check cannot run while the given operations have not passed; `undefined` once they have. */
export function needs(run: Run, ...names: EndpointName[]): string | undefined {
  const missing = names.filter((name) => !passed(run, name));
  return missing.length === 0
    ? undefined
    : `needs ${missing.map((name) => endpoints[name].operation).join(', ')}, which did not pass`;
}
