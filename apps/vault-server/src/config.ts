import { resolve } from 'node:path';
import * as v from 'valibot';
import {
  DEFAULT_CACHE_TTL_MS,
  DEFAULT_FAILED_KEY_LIMIT,
  DEFAULT_HOST,
  DEFAULT_MAX_FILE_BYTES,
  DEFAULT_MAX_URL_LENGTH,
  DEFAULT_PORT,
  DEFAULT_RATE_LIMIT_PER_MINUTE,
} from './constants.ts';
import { invalid } from './errors.ts';
import { parseCidrList } from './http/ip-rules.ts';

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
  VAULTLINE_RATE_LIMIT_PER_MINUTE: integer(1, 100_000_000, DEFAULT_RATE_LIMIT_PER_MINUTE),
  VAULTLINE_FAILED_KEY_LIMIT: integer(1, 1_000_000, DEFAULT_FAILED_KEY_LIMIT),
  VAULTLINE_TRUSTED_PROXIES: v.optional(v.string(), ''),
  VAULTLINE_LOG_LEVEL: v.optional(
    v.picklist(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']),
    'info',
  ),
  VAULTLINE_CACHE_TTL_MS: integer(0, 3_600_000, DEFAULT_CACHE_TTL_MS),
});

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
  const dataDir = out.VAULTLINE_DATA_DIR ?? defaultDataDir;
  return {
    host: out.VAULTLINE_HOST,
    port: out.VAULTLINE_PORT,
    dataDir: dataDir === undefined ? undefined : resolve(dataDir),
    databaseUrl: out.DATABASE_URL,
    masterKey: out.VAULTLINE_MASTER_KEY,
    maxUrlLength: out.VAULTLINE_MAX_URL_LENGTH,
    maxFileBytes: out.VAULTLINE_MAX_FILE_BYTES,
    rateLimitPerMinute: out.VAULTLINE_RATE_LIMIT_PER_MINUTE,
    failedKeyLimit: out.VAULTLINE_FAILED_KEY_LIMIT,
    trustedProxies,
    logLevel: out.VAULTLINE_LOG_LEVEL,
    cacheTtlMs: out.VAULTLINE_CACHE_TTL_MS,
  };
}

/** The defaults, for code that starts a server without an environment (tests). */
export function defaultConfig(overrides: Partial<VaultServerConfig> = {}): VaultServerConfig {
  return { ...configFromEnv({}, undefined), ...overrides };
}
