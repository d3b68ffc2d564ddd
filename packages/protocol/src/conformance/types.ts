/**
 * The conformance suite's options and report: one result per operation, one finding per optional
 * behaviour.
 *
 * @module
 */

import type { ServerCapabilities } from '../capabilities.ts';
import type { EndpointName } from '../legacy/endpoints.ts';
import type { DialectOption } from '../vault/types.ts';

/** Options of `runConformance`. */
export interface ConformanceOptions {
  /** The server's base URL. */
  baseUrl: string;
  /**
   * An API key that may create folders and items and read the given login's data; on TeamPass 3,
   * the login's personal API key (with `password`), unless `personalAccessToken` is given.
   */
  apiKey?: string | undefined;
  /** A vault login whose read/userpw and read/userfolders are read; on TeamPass 3, the user who signs in. */
  login: string;
  /** The login's password, on servers with per-user sign-in (TeamPass 3). */
  password?: string | undefined;
  /** A personal access token instead of the password and API key (TeamPass 3, where enabled). */
  personalAccessToken?: string | undefined;
  /** The dialect, when known; detected otherwise. */
  dialect?: DialectOption | undefined;
  /**
   * Whether to test the three file operations. Default true: a server without them (TeamPass)
   * is then reported as a finding (`files: absent`) and the three are skipped, not failed.
   */
  files?: boolean | undefined;
  /** Receives a line per finished optional check. */
  onFinding?: ((finding: ConformanceFinding) => void) | undefined;
  /** The `fetch` to use. */
  fetch?: typeof globalThis.fetch | undefined;
  /** Receives a line per finished operation. */
  onResult?: ((result: ConformanceResult) => void) | undefined;
}

/** The outcome of one operation. */
export interface ConformanceResult {
  /** The operation's name in the table. */
  endpoint: EndpointName;
  /** The spec's name, e.g. `read/items`. */
  operation: string;
  /** Whether every check of it passed; `undefined` when it was not run. */
  ok: boolean | undefined;
  /** What was checked, or what failed. */
  detail: string;
}

/** The optional behaviours checked on their own. */
export const CONFORMANCE_CHECKS = [
  'four-byte-text',
  'files',
  'full-text-search',
  'key-header',
  'other-users',
  'multi-id-reads',
  'url-lookup',
  'tags-scope',
] as const;

/** One optional behaviour. */
export type ConformanceCheck = (typeof CONFORMANCE_CHECKS)[number];

/**
 * What a server does with an optional behaviour: `supported` (as the spec gives it), `mangles`
 * (accepts and changes the data), `refuses` (answers an error), `absent` (the operation does not
 * exist there), `leaks` (it answers more than the caller may see), `failed` (something else went
 * wrong: the check could not tell), `not-run` (the check was not made: its detail says why).
 */
export type FindingOutcome = 'supported' | 'mangles' | 'refuses' | 'absent' | 'leaks' | 'failed' | 'not-run';

/** The outcome of one optional check: one line for people. */
export interface ConformanceFinding {
  /** The behaviour checked. */
  check: ConformanceCheck;
  /** What the server does. */
  outcome: FindingOutcome;
  /** One line: what was sent and what came back (redacted). */
  detail: string;
  /** Whether this is a known limit of TeamPass (`docs/teampass.md`), not a defect of this server. */
  knownTeamPassLimit: boolean;
}

/** The outcome of a run. */
export interface ConformanceReport {
  /** Whether every operation that ran passed, none was left out unexpectedly, and no check `failed`. */
  ok: boolean;
  /** One result per operation, in table order. */
  results: ConformanceResult[];
  /** One finding per optional check (`not-run` for one that was not made), in {@link CONFORMANCE_CHECKS} order. */
  findings: ConformanceFinding[];
  /** What the client learnt of the server. */
  capabilities: ServerCapabilities | undefined;
}
