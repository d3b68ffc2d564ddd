/**
 * How the TeamPass 3 caller reads an answer: a success body parsed with the row's schema, a
 * redirect, an empty error, a problem+json body with the server's words, anything else; and the
 * error of input that is not sent.
 *
 * @module
 */

import * as v from 'valibot';
import { maskPasswords, type Redactor, VaultError } from '../../errors.ts';
import type { Answer } from '../../transport/transport.ts';
import type { TeamPass3EndpointDefinition, TeamPass3EndpointName, TeamPass3Output } from '../endpoints.ts';
import { TeamPass3ProblemSchema } from '../schemas.ts';
import { classifyTeamPass3Error, codeOfStatus } from './failures.ts';
import type { Origin, TeamPass3Failure, TeamPass3Result } from './types.ts';

const utf8 = /* @__PURE__ */ new TextDecoder();

/** A 2xx answer: its body parsed with the row's schema. */
function successOf<K extends TeamPass3EndpointName>(
  answer: Answer,
  origin: Origin,
  redact: Redactor,
): TeamPass3Result<K> {
  const { status } = answer;
  const text = utf8.decode(answer.bytes);
  const { row, name, url } = origin;
  const base = { status, endpoint: name, url };
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    return failure(
      new VaultError(
        'invalid_response',
        `${row.operation} expected JSON, received ${describeBody(text)} (HTTP ${status}).`,
        { ...base, excerpt: excerptOf(text, redact) },
      ),
      status,
    );
  }
  const parsed = v.safeParse(row.schema, data);
  if (!parsed.success) {
    return failure(
      new VaultError(
        'invalid_response',
        redact(`${row.operation} answered a body of an unexpected shape: ${describeIssue(parsed.issues)}.`),
        { ...base, issues: parsed.issues.map(summarizeIssue), excerpt: excerptOf(text, redact) },
      ),
      status,
    );
  }
  const header = answer.headers.get('x-total-count');
  const total = header === null ? undefined : Number.parseInt(header, 10);
  return {
    ok: true,
    status,
    data: parsed.output as TeamPass3Output<K>,
    total: total !== undefined && Number.isFinite(total) ? total : undefined,
  };
}

/** A 4xx or 5xx answer: the server's words from a problem+json body, or what it sent instead. */
function failureOf(answer: Answer, origin: Origin, redact: Redactor): TeamPass3Failure {
  const { status } = answer;
  const text = utf8.decode(answer.bytes);
  const { row, name, url } = origin;
  const base = { status, endpoint: name, url };
  if (text.trim() === '') {
    return failure(
      new VaultError(
        status >= 500 ? 'server' : codeOfStatus(status),
        `${row.operation} failed with HTTP ${status} and an empty body (TeamPass answers so for a malformed request body and for some of its own errors).`,
        base,
      ),
      status,
    );
  }
  let problem: v.InferOutput<typeof TeamPass3ProblemSchema> | undefined;
  try {
    const result = v.safeParse(TeamPass3ProblemSchema, JSON.parse(text));
    if (result.success) problem = result.output;
  } catch {
    problem = undefined;
  }
  if (!problem) {
    return failure(
      new VaultError(
        codeOfStatus(status),
        `${row.operation} failed with HTTP ${status}: expected a problem+json body, received ${describeBody(text)}.`,
        { ...base, excerpt: excerptOf(text, redact) },
      ),
      status,
    );
  }
  const words = redact(problem.detail);
  const firstLine = words.split(/\r?\n/)[0]!.trim();
  const short = firstLine.length > 200 ? `${firstLine.slice(0, 199)}…` : firstLine;
  return failure(
    new VaultError(
      classifyTeamPass3Error(status, words),
      `${row.operation} failed: ${short} (HTTP ${status}).`,
      {
        ...base,
        serverMessage: words,
        reason: /HTTPS is required/i.test(words) ? 'https_required' : undefined,
      },
    ),
    status,
  );
}

/** Reads one answer: a success, a redirect (never followed), or a failure. */
export function interpret<K extends TeamPass3EndpointName>(
  answer: Answer,
  origin: Origin,
  redact: Redactor,
): TeamPass3Result<K> {
  const { status } = answer;
  const { row, name, url } = origin;
  const base = { status, endpoint: name, url };
  if (status >= 200 && status < 300) return successOf<K>(answer, origin, redact);
  if (status >= 300 && status < 400) {
    const where = answer.headers.get('location');
    const location = where ? ` to ${redact(where)}` : '';
    return failure(
      new VaultError(
        'invalid_request',
        `${row.operation}: the server redirects${location} (HTTP ${status}); use the URL it redirects to as the base URL.`,
        base,
      ),
      status,
    );
  }
  return failureOf(answer, origin, redact);
}

/** The `invalid_request` of input that does not fit the row: nothing was sent. */
export function invalidInput(
  row: TeamPass3EndpointDefinition,
  name: TeamPass3EndpointName,
  issues: readonly v.BaseIssue<unknown>[],
  redact: Redactor,
): VaultError {
  return new VaultError(
    'invalid_request',
    redact(`${row.operation}: ${describeIssue(issues)}; nothing was sent.`),
    {
      endpoint: name,
      issues: issues.map(summarizeIssue),
    },
  );
}

export function failure(error: VaultError, status?: number): TeamPass3Failure {
  return { ok: false, status: status ?? error.status, error };
}

export function describeIssue(issues: readonly v.BaseIssue<unknown>[]): string {
  const issue = deepest(issues);
  const path = issue?.path?.map((item) => String(item.key)).join('.') ?? '';
  return `${path ? `${path}: ` : ''}${issue?.expected ? `expected ${issue.expected}` : (issue?.message ?? 'invalid')}`;
}

function deepest(issues: readonly v.BaseIssue<unknown>[]): v.BaseIssue<unknown> | undefined {
  let best: v.BaseIssue<unknown> | undefined;
  for (const issue of issues) {
    const candidate = (issue.issues && deepest(issue.issues)) || issue;
    if (!best || (candidate.path?.length ?? 0) > (best.path?.length ?? 0)) best = candidate;
  }
  return best;
}

/** An issue without the value it was raised on (values may be passwords). */
export function summarizeIssue(issue: v.BaseIssue<unknown>): Record<string, unknown> {
  return {
    kind: issue.kind,
    type: issue.type,
    path: issue.path?.map((item) => item.key) ?? [],
    expected: issue.expected,
  };
}

function describeBody(text: string): string {
  const trimmed = text.trimStart();
  if (trimmed === '') return 'an empty body';
  if (/^<(!doctype|html|br|b>|\?xml|h1)/i.test(trimmed)) return 'an HTML page';
  return 'text that is not JSON';
}

function excerptOf(text: string, redact: Redactor): string {
  const flat = maskPasswords(redact(text))
    .replace(/"(pwd|totp|token|extension_key)"\s*:\s*"(?:[^"\\]|\\.)*"/g, '"$1":"[REDACTED]"')
    .replace(/\s+/g, ' ')
    .trim();
  return flat.length > 160 ? `${flat.slice(0, 160)}…` : flat;
}
