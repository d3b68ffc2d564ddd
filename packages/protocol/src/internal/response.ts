/**
 * Turns what a server answered into a value or a {@link VaultError}: `{"err":…}` bodies whatever the
 * HTTP status, `No results` as an empty collection, non-JSON bodies as typed errors with an excerpt.
 * Internal: shared by files of the package, exported by none of its entries.
 *
 * @module
 */

import * as v from 'valibot';
import {
  maskPasswords,
  REASON_CODES,
  type Redactor,
  VAULT_ERROR_CODES,
  VAULT_ERROR_REASONS,
  VaultError,
  type VaultErrorCode,
  type VaultErrorReason,
} from '../errors.ts';
import type { EndpointDefinition } from '../legacy/endpoints.ts';
import { ErrorBodySchema } from '../legacy/schemas.ts';

/** Where a response came from, for error messages. */
export interface ResponseOrigin {
  /** The operation's name in the table. */
  endpoint: string;
  /** The row. */
  definition: EndpointDefinition;
  /** The request URL, already redacted. */
  url: string;
  /** The redactor of the client. */
  redact: Redactor;
}

/** What real servers say, and what it means. Checked in order; first match wins. */
const MESSAGE_CODES: ReadonlyArray<readonly [RegExp, VaultErrorCode]> = [
  [/\bapi[ _]?key revoked\b/i, 'unauthorized'],
  [/api access not allowed/i, 'api_disabled'],
  [/ip address not allowed/i, 'forbidden'],
  [/api_?key .*(doesn't|does not) exist|something happen/i, 'unauthorized'],
  [/label already exists/i, 'duplicate_label'],
  [/no data exists|does not exist|no results|not found/i, 'not_found'],
  // The Vaultline server's refusals, which its teampass profile sends without their code.
  [/\b(this|a user-bound) key may (not|only)\b|\bonly an admin key may\b/i, 'forbidden'],
  [/too (long|large)|larger than the limit/i, 'too_large'],
  [/rate limit|too many/i, 'rate_limited'],
  [
    /method not authorized|url format|definition not|missing|is empty|not allowed|complexity level|no folder specified/i,
    'invalid_request',
  ],
];

/**
 * What servers say about why, and what it means: Vaultline's wording, for answers that carry no
 * `reason` (a body in TeamPass's shape, `{"err": …}` only).
 */
const MESSAGE_REASONS: ReadonlyArray<readonly [RegExp, VaultErrorReason]> = [
  [/\bapi[ _]?key revoked\b/i, 'key_revoked'],
];

/** TeamPass's own codes. */
const SERVER_CODES: Readonly<Record<string, VaultErrorCode>> = {
  API_KEY_NOT_FOUND: 'unauthorized',
  NO_DATA_EXIST: 'not_found',
  METHOD_NOT_AUTHORIZED: 'invalid_request',
};

const STATUS_CODES: Readonly<Record<number, VaultErrorCode>> = {
  400: 'invalid_request',
  401: 'unauthorized',
  403: 'forbidden',
  404: 'not_found',
  405: 'invalid_request',
  409: 'duplicate_label',
  413: 'too_large',
  414: 'too_large',
  429: 'rate_limited',
};

/**
 * Decides the code of an error answer.
 *
 * @param status The HTTP status.
 * @param message The server's message.
 * @param serverCode The server's code, when sent.
 * @returns The code.
 */
export function classifyError(
  status: number,
  message: string,
  serverCode: string | undefined,
): VaultErrorCode {
  if (serverCode !== undefined) {
    if ((VAULT_ERROR_CODES as readonly string[]).includes(serverCode)) return serverCode as VaultErrorCode;
    const known = SERVER_CODES[serverCode];
    if (known) return known;
  }
  for (const [pattern, code] of MESSAGE_CODES) if (pattern.test(message)) return code;
  return STATUS_CODES[status] ?? (status >= 500 ? 'server' : 'invalid_request');
}

/**
 * Decides the reason of an error answer: the server's `reason` when it is one the core knows,
 * else what its message says; kept only when it refines the error's code.
 *
 * @param code The error's code (from {@link classifyError}).
 * @param message The server's message.
 * @param serverReason The server's `reason`, when sent.
 * @returns The reason, or `undefined`.
 */
export function classifyReason(
  code: VaultErrorCode,
  message: string,
  serverReason: string | undefined,
): VaultErrorReason | undefined {
  const reason =
    VAULT_ERROR_REASONS.find((known) => known === serverReason) ??
    MESSAGE_REASONS.find(([pattern]) => pattern.test(message))?.[1];
  return reason !== undefined && REASON_CODES[reason] === code ? reason : undefined;
}

/**
 * Makes a short, single-line, redacted excerpt of a body.
 *
 * @param text The body.
 * @param redact The redactor.
 * @returns At most 160 characters.
 */
export function excerptOf(text: string, redact: Redactor): string {
  // Bodies of the wrong shape are often real records: mask their passwords too.
  const flat = maskPasswords(redact(text)).replace(/\s+/g, ' ').trim();
  return flat.length > 160 ? `${flat.slice(0, 160)}…` : flat;
}

function describeBody(text: string): string {
  const trimmed = text.trimStart();
  if (trimmed === '') return 'an empty body';
  if (/^<(!doctype|html|br|b>|\?xml)/i.test(trimmed)) return 'an HTML page';
  if (/sql|mysql|syntax|query/i.test(trimmed.slice(0, 300))) return 'a database error';
  return 'text that is not JSON';
}

/**
 * Interprets a JSON-kind response body.
 *
 * @param status The HTTP status.
 * @param body The body as text.
 * @param origin Where it came from.
 * @returns The parsed, validated value.
 * @throws {VaultError} For error answers and bodies that cannot be understood.
 */
export function interpretJson(status: number, body: string, origin: ResponseOrigin): unknown {
  const { definition, redact } = origin;
  let data: unknown;
  try {
    data = JSON.parse(body);
  } catch {
    // The spec's delete answers are the bare text OK.
    if (body.trim() === 'OK' && status < 400) data = 'OK';
    else throw unreadable(status, body, origin);
  }
  if (typeof data === 'object' && data !== null && !Array.isArray(data)) {
    const record = data as Record<string, unknown>;
    if ('err' in record) {
      const parsed = v.safeParse(ErrorBodySchema, record);
      const message = redact(parsed.success ? parsed.output.err : String(record.err));
      const serverCode = parsed.success ? parsed.output.code : undefined;
      const serverReason = parsed.success ? parsed.output.reason : undefined;
      if (
        /^no results$/i.test(message.trim()) &&
        definition.noResults === 'empty' &&
        serverCode === undefined
      ) {
        return [];
      }
      throw errorAnswer(status, message, serverCode, origin, serverReason);
    }
    // The file endpoints of the TeamPass fork answer errors as {"status":"error","message":"…"}.
    if (record.status === 'error') {
      throw errorAnswer(status, redact(String(record.message ?? 'error')), undefined, origin);
    }
  }
  if (status >= 400) {
    throw new VaultError(
      STATUS_CODES[status] ?? 'server',
      `${definition.operation} failed with HTTP ${status}.`,
      {
        status,
        endpoint: origin.endpoint,
        url: origin.url,
        excerpt: excerptOf(body, redact),
      },
    );
  }
  if (!definition.schema) return data;
  const result = v.safeParse(definition.schema, data);
  if (result.success) return result.output;
  const specific = mostSpecific(result.issues);
  const issue = specific?.issue;
  const where = specific?.path.join('.') ?? '';
  throw new VaultError(
    'invalid_response',
    redact(
      `${definition.operation} answered a body of an unexpected shape${where ? ` at ${where}` : ''}: ${issue?.message ?? 'invalid'}.`,
    ),
    {
      status,
      endpoint: origin.endpoint,
      url: origin.url,
      issues: result.issues.map((item) => summarizeIssue(item, redact)),
      excerpt: excerptOf(body, redact),
    },
  );
}

/** An issue without the inputs valibot keeps in it (whole records, passwords included), redacted. */
interface IssueSummary {
  kind: string;
  type: string;
  path: unknown[];
  expected: string | null;
  received: string;
  message: string;
  issues?: IssueSummary[];
}

function summarizeIssue(issue: v.BaseIssue<unknown>, redact: Redactor): IssueSummary {
  return {
    kind: issue.kind,
    type: issue.type,
    path: issue.path?.map((item) => item.key) ?? [],
    expected: issue.expected,
    received: redact(issue.received),
    message: redact(issue.message),
    ...(issue.issues ? { issues: issue.issues.map((nested) => summarizeIssue(nested, redact)) } : {}),
  };
}

/**
 * The issue that got furthest, with its full path: a union (array or keyed object, string or number)
 * only reports "wrong type" itself, and its nested issues' paths are relative to it.
 */
function mostSpecific(
  issues: readonly v.BaseIssue<unknown>[],
  prefix: readonly string[] = [],
): { issue: v.BaseIssue<unknown>; path: string[] } | undefined {
  let best: { issue: v.BaseIssue<unknown>; path: string[] } | undefined;
  for (const issue of issues) {
    const path = [...prefix, ...(issue.path?.map((item) => String(item.key)) ?? [])];
    const candidate = (issue.issues && mostSpecific(issue.issues, path)) || { issue, path };
    if (!best || candidate.path.length > best.path.length) best = candidate;
  }
  return best;
}

/**
 * Builds the error of an `{"err":…}` answer.
 *
 * @param status The HTTP status.
 * @param message The server's message, redacted.
 * @param serverCode The server's code.
 * @param origin Where it came from.
 * @param serverReason The server's reason, when sent.
 * @returns The error.
 */
export function errorAnswer(
  status: number,
  message: string,
  serverCode: string | undefined,
  origin: ResponseOrigin,
  serverReason?: string,
): VaultError {
  const code = classifyError(status, message, serverCode);
  // The message keeps the server's words, short: its first line, at most 200 characters.
  const firstLine = message.split(/\r?\n/)[0]!.trim();
  const short = firstLine.length > 200 ? `${firstLine.slice(0, 199)}…` : firstLine;
  return new VaultError(code, `${origin.definition.operation} failed: ${short} (HTTP ${status}).`, {
    status,
    serverMessage: message,
    serverCode,
    reason: classifyReason(code, message, serverReason),
    endpoint: origin.endpoint,
    url: origin.url,
  });
}

function unreadable(status: number, body: string, origin: ResponseOrigin): VaultError {
  const what = describeBody(body);
  const excerpt = excerptOf(body, origin.redact);
  const code: VaultErrorCode = status >= 400 ? (STATUS_CODES[status] ?? 'server') : 'invalid_response';
  return new VaultError(
    code,
    `${origin.definition.operation} expected JSON, received ${what} (HTTP ${status})${excerpt ? `: ${excerpt}` : ''}.`,
    { status, endpoint: origin.endpoint, url: origin.url, excerpt },
  );
}
