import { resolve } from 'node:path';
import { AuditSinkConfigError, DEFAULT_QUEUE_SIZE, parseSinks, type SinkSpec } from '@vaultline/audit-stream';
import * as v from 'valibot';
import {
  DEFAULT_CACHE_TTL_MS,
  DEFAULT_FAILED_KEY_LIMIT,
  DEFAULT_HOST,
  DEFAULT_MAX_FILE_BYTES,
  DEFAULT_MAX_TRANSFERS,
  DEFAULT_MAX_URL_LENGTH,
  DEFAULT_PORT,
  DEFAULT_RATE_LIMIT_PER_MINUTE,
  DEFAULT_REQUEST_TIMEOUT_MS,
  DEFAULT_TRANSFER_IDLE_MS,
  DEFAULT_TRANSFER_MIN_RATE,
  DEFAULT_UPSTREAM_CALLS_PER_MINUTE,
  DEFAULT_UPSTREAM_DEADLINE_MS,
} from './constants.ts';
import { invalid } from './errors.ts';
import { parseCidrList } from './net/ip-rules.ts';

/** Everything the server is configured with. */
export interface VaultServerConfig {
  /** Address to bind. */
  host: string;
  /** Port to bind; 0 picks a free one. */
  port: number;
  /** PGlite data directory; in memory when undefined (and no databaseUrl). */
  dataDir: string | undefined;
  /** PostgreSQL connection string; wins over dataDir for the data (dataDir still holds the master key file). */
  databaseUrl: string | undefined;
  /** The master key (base64 or hex of 32 bytes); else `<dataDir>/master.key`. */
  masterKey: string | undefined;
  /** Longest request URL in bytes; longer gets 414. */
  maxUrlLength: number;
  /** Largest attachment in bytes; larger gets 413. */
  maxFileBytes: number;
  /** Attachment transfers (add/file and read/files together) at once; one more gets 503. */
  maxTransfers: number;
  /** Attachment transfers of one API key at once; half of maxTransfers (at least 1) when undefined. */
  maxTransfersPerKey: number | undefined;
  /** How long a transfer may move no byte before its place is given back and its socket closed, in ms. */
  transferIdleMs: number;
  /**
   * The least a transfer must move, in bytes per second over each window of `transferIdleMs`,
   * before its place is given back and its socket closed; 0 for no minimum.
   */
  transferMinRate: number;
  /** How long a client may take to send a whole request, in ms; past it: 408 and the socket closed. */
  requestTimeoutMs: number;
  /** Requests per client address per minute; more get 429. */
  rateLimitPerMinute: number;
  /** Failed keys per client address per 15 minutes before the address is refused. */
  failedKeyLimit: number;
  /** Proxies whose `X-Forwarded-For` is believed (CIDR ranges). */
  trustedProxies: string[];
  /** pino level. */
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  /** How long keys, rights and the folder tree are cached, in ms (0 = never). */
  cacheTtlMs: number;
  /** Whether `?apikey=` is accepted (`accept`) or refused (`refuse`); `Authorization: Bearer` always is. */
  queryKeys: 'accept' | 'refuse';
  /** Origins a browser may call the API from (CORS); none by default. */
  corsOrigins: string[];
  /** PEM certificate chain file: HTTPS when set (with tlsKey); reread on SIGHUP. */
  tlsCert: string | undefined;
  /** PEM private key file. */
  tlsKey: string | undefined;
  /** Whether plain HTTP may be served on a non-loopback address (behind a TLS-terminating proxy). */
  allowPlainHttp: boolean;
  /**
   * Upstream mode: the base URL of the TeamPass 3 (or TeamPass 2) server whose items the server
   * serves, as the upstream accounts its keys are bound to; `undefined` for the server's own vault.
   */
  upstreamUrl: string | undefined;
  /** Upstream mode: how long answers to reads are kept per key scope, in ms; 0 (default) keeps none. */
  upstreamCacheTtlMs: number;
  /**
   * Upstream mode: how old a kept answer may be and still be served while the upstream is down,
   * in ms; 0 (default) never serves one. Never used for a refusal.
   */
  upstreamStaleIfErrorMs: number;
  /** Where audit events are streamed besides the audit table (`VAULTLINE_AUDIT_SINKS`); none by default. */
  auditSinks: SinkSpec[];
  /** The bearer token of HTTP audit sinks. */
  auditSinkToken: string | undefined;
  /** A PEM file of CA certificates trusted, besides the system's, by TLS syslog and HTTPS audit sinks. */
  auditSinkCa: string | undefined;
  /** Audit events waiting per sink; more are dropped and counted. */
  auditQueueSize: number;
  /** Upstream mode: the time a caller is given for its upstream work, in ms (below the CLI's 10 s). */
  upstreamDeadlineMs: number;
  /**
   * Upstream mode: the most TeamPass may count of an account's calls in a minute (below its limit):
   * half of them at once, the other half a minute.
   */
  upstreamCallsPerMinute: number;
}

const integer = (min: number, max: number, fallback: number) =>
  v.pipe(
    v.optional(v.string(), String(fallback)),
    v.trim(),
    v.regex(/^\d+$/, 'must be a whole number'),
    v.transform(Number),
    v.minValue(min, `must be at least ${min}`),
    v.maxValue(max, `must be at most ${max}`),
  );

const optionalText = v.optional(
  v.pipe(
    v.string(),
    v.trim(),
    v.transform((text) => (text === '' ? undefined : text)),
  ),
);

/** The environment variables the server reads, validated in one schema. */
export const EnvSchema = v.object({
  VAULTLINE_HOST: v.optional(v.pipe(v.string(), v.trim(), v.nonEmpty('must not be empty')), DEFAULT_HOST),
  VAULTLINE_PORT: integer(0, 65_535, DEFAULT_PORT),
  VAULTLINE_DATA_DIR: optionalText,
  DATABASE_URL: v.optional(
    v.pipe(
      v.string(),
      v.trim(),
      v.check(
        (text) => text === '' || /^postgres(ql)?:\/\//.test(text),
        'must start with postgres:// or postgresql://',
      ),
      v.transform((text) => (text === '' ? undefined : text)),
    ),
  ),
  VAULTLINE_MASTER_KEY: optionalText,
  VAULTLINE_MAX_URL_LENGTH: integer(1_024, 1_000_000, DEFAULT_MAX_URL_LENGTH),
  VAULTLINE_MAX_FILE_BYTES: integer(1, 1024 * 1024 * 1024, DEFAULT_MAX_FILE_BYTES),
  VAULTLINE_MAX_TRANSFERS: integer(1, 1_000, DEFAULT_MAX_TRANSFERS),
  VAULTLINE_MAX_TRANSFERS_PER_KEY: v.optional(
    v.pipe(
      v.string(),
      v.trim(),
      v.regex(/^\d*$/, 'must be a whole number'),
      v.transform((text) => (text === '' ? undefined : Number(text))),
      v.check((count) => count === undefined || (count >= 1 && count <= 1_000), 'must be 1 to 1000'),
    ),
  ),
  VAULTLINE_TRANSFER_IDLE_MS: integer(100, 3_600_000, DEFAULT_TRANSFER_IDLE_MS),
  VAULTLINE_TRANSFER_MIN_RATE: integer(0, 1024 * 1024 * 1024, DEFAULT_TRANSFER_MIN_RATE),
  VAULTLINE_REQUEST_TIMEOUT_MS: integer(1_000, 3_600_000, DEFAULT_REQUEST_TIMEOUT_MS),
  VAULTLINE_RATE_LIMIT_PER_MINUTE: integer(1, 100_000_000, DEFAULT_RATE_LIMIT_PER_MINUTE),
  VAULTLINE_FAILED_KEY_LIMIT: integer(1, 1_000_000, DEFAULT_FAILED_KEY_LIMIT),
  VAULTLINE_TRUSTED_PROXIES: v.optional(v.string(), ''),
  VAULTLINE_LOG_LEVEL: v.optional(
    v.picklist(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']),
    'info',
  ),
  VAULTLINE_CACHE_TTL_MS: integer(0, 3_600_000, DEFAULT_CACHE_TTL_MS),
  VAULTLINE_QUERY_KEYS: v.optional(
    v.pipe(
      v.string(),
      v.trim(),
      v.toLowerCase(),
      v.picklist(['accept', 'refuse'], 'must be accept or refuse'),
    ),
    'accept',
  ),
  VAULTLINE_CORS_ORIGINS: v.optional(v.string(), ''),
  VAULTLINE_TLS_CERT: optionalText,
  VAULTLINE_TLS_KEY: optionalText,
  VAULTLINE_UPSTREAM_CACHE_TTL_MS: integer(0, 3_600_000, 0),
  VAULTLINE_UPSTREAM_STALE_IF_ERROR_MS: integer(0, 86_400_000, 0),
  VAULTLINE_UPSTREAM_DEADLINE_MS: integer(100, 600_000, DEFAULT_UPSTREAM_DEADLINE_MS),
  VAULTLINE_UPSTREAM_CALLS_PER_MINUTE: integer(2, 1_000_000, DEFAULT_UPSTREAM_CALLS_PER_MINUTE),
  VAULTLINE_UPSTREAM_URL: v.optional(
    v.pipe(
      v.string(),
      v.trim(),
      v.check(
        (text) => text === '' || /^https?:\/\/[^\s]+$/.test(text),
        'must be an http:// or https:// URL',
      ),
      v.transform((text) => (text === '' ? undefined : text.replace(/\/+$/, ''))),
    ),
  ),
  VAULTLINE_AUDIT_SINKS: v.optional(v.string(), ''),
  VAULTLINE_AUDIT_SINK_TOKEN: optionalText,
  VAULTLINE_AUDIT_SINK_CA: optionalText,
  VAULTLINE_AUDIT_QUEUE_SIZE: integer(1, 10_000_000, DEFAULT_QUEUE_SIZE),
  VAULTLINE_ALLOW_PLAIN_HTTP: v.optional(
    v.pipe(
      v.string(),
      v.trim(),
      v.toLowerCase(),
      v.picklist(['', '0', '1', 'false', 'true'], 'must be 1 or 0'),
      v.transform((text) => text === '1' || text === 'true'),
    ),
    '0',
  ),
});

/**
 * Reads the CORS allow-list: origins as browsers send them (`https://host[:port]`, no path), so
 * that a typo fails at start instead of silently allowing nothing.
 */
function parseOrigins(text: string): string[] {
  const origins = text
    .split(',')
    .map((origin) => origin.trim())
    .filter(Boolean);
  for (const origin of origins) {
    let parsed: URL | undefined;
    try {
      parsed = new URL(origin);
    } catch {
      parsed = undefined;
    }
    if (!parsed || !/^https?:$/.test(parsed.protocol) || parsed.origin !== origin) {
      throw invalid(
        `Invalid configuration: VAULTLINE_CORS_ORIGINS expects origins like https://vscode.dev (scheme, host and optional port, no path or trailing slash), received ${JSON.stringify(origin)}.`,
      );
    }
  }
  return origins;
}

/**
 * Reads the configuration from environment variables, all checked at once.
 *
 * @param env The environment.
 * @param defaultDataDir The data directory when VAULTLINE_DATA_DIR is unset.
 * @returns The configuration.
 * @throws {VaultServerError} `invalid_request` naming every bad variable.
 */
export function configFromEnv(env: NodeJS.ProcessEnv, defaultDataDir: string | undefined): VaultServerConfig {
  const result = v.safeParse(EnvSchema, env);
  if (!result.success) {
    const problems = result.issues.map(
      (issue) => `${issue.path?.map((p) => String(p.key)).join('.') ?? 'env'} ${issue.message}`,
    );
    throw invalid(`Invalid configuration: ${problems.join('; ')}.`);
  }
  const out = result.output;
  const trustedProxies = out.VAULTLINE_TRUSTED_PROXIES.split(',')
    .map((range) => range.trim())
    .filter(Boolean);
  parseCidrList(trustedProxies, 'VAULTLINE_TRUSTED_PROXIES');
  if ((out.VAULTLINE_TLS_CERT === undefined) !== (out.VAULTLINE_TLS_KEY === undefined)) {
    throw invalid(
      'Invalid configuration: set both VAULTLINE_TLS_CERT and VAULTLINE_TLS_KEY (PEM files) to serve HTTPS, or neither.',
    );
  }
  let auditSinks: SinkSpec[];
  try {
    auditSinks = parseSinks(out.VAULTLINE_AUDIT_SINKS);
  } catch (error) {
    if (!(error instanceof AuditSinkConfigError)) throw error;
    throw invalid(`Invalid configuration: ${error.message}`);
  }
  const dataDir = out.VAULTLINE_DATA_DIR ?? defaultDataDir;
  return {
    host: out.VAULTLINE_HOST,
    port: out.VAULTLINE_PORT,
    dataDir: dataDir === undefined ? undefined : resolve(dataDir),
    databaseUrl: out.DATABASE_URL,
    masterKey: out.VAULTLINE_MASTER_KEY,
    maxUrlLength: out.VAULTLINE_MAX_URL_LENGTH,
    maxFileBytes: out.VAULTLINE_MAX_FILE_BYTES,
    maxTransfers: out.VAULTLINE_MAX_TRANSFERS,
    maxTransfersPerKey: out.VAULTLINE_MAX_TRANSFERS_PER_KEY,
    transferIdleMs: out.VAULTLINE_TRANSFER_IDLE_MS,
    transferMinRate: out.VAULTLINE_TRANSFER_MIN_RATE,
    requestTimeoutMs: out.VAULTLINE_REQUEST_TIMEOUT_MS,
    rateLimitPerMinute: out.VAULTLINE_RATE_LIMIT_PER_MINUTE,
    failedKeyLimit: out.VAULTLINE_FAILED_KEY_LIMIT,
    trustedProxies,
    logLevel: out.VAULTLINE_LOG_LEVEL,
    cacheTtlMs: out.VAULTLINE_CACHE_TTL_MS,
    queryKeys: out.VAULTLINE_QUERY_KEYS,
    corsOrigins: parseOrigins(out.VAULTLINE_CORS_ORIGINS),
    tlsCert: out.VAULTLINE_TLS_CERT === undefined ? undefined : resolve(out.VAULTLINE_TLS_CERT),
    tlsKey: out.VAULTLINE_TLS_KEY === undefined ? undefined : resolve(out.VAULTLINE_TLS_KEY),
    allowPlainHttp: out.VAULTLINE_ALLOW_PLAIN_HTTP,
    upstreamUrl: out.VAULTLINE_UPSTREAM_URL,
    upstreamCacheTtlMs: out.VAULTLINE_UPSTREAM_CACHE_TTL_MS,
    upstreamStaleIfErrorMs: out.VAULTLINE_UPSTREAM_STALE_IF_ERROR_MS,
    auditSinks,
    auditSinkToken: out.VAULTLINE_AUDIT_SINK_TOKEN,
    auditSinkCa: out.VAULTLINE_AUDIT_SINK_CA === undefined ? undefined : resolve(out.VAULTLINE_AUDIT_SINK_CA),
    auditQueueSize: out.VAULTLINE_AUDIT_QUEUE_SIZE,
    upstreamDeadlineMs: out.VAULTLINE_UPSTREAM_DEADLINE_MS,
    upstreamCallsPerMinute: out.VAULTLINE_UPSTREAM_CALLS_PER_MINUTE,
  };
}

/** The defaults, for code that starts a server without an environment (tests). */
export function defaultConfig(overrides: Partial<VaultServerConfig> = {}): VaultServerConfig {
  return { ...configFromEnv({}, undefined), ...overrides };
}
