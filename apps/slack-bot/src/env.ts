import * as v from 'valibot';
import { DEFAULTS, ENV, MAX_PAGE_SIZE } from './constants.ts';

/** A configuration error: lists every missing or malformed setting at once. */
export class ConfigError extends Error {
  override name = 'ConfigError';
  readonly code = 'invalid_config';
  /** One line per problem. */
  readonly problems: readonly string[];

  constructor(problems: readonly string[]) {
    super(`Invalid configuration:\n  - ${problems.join('\n  - ')}`);
    this.problems = problems;
  }
}

const text = (what: string) =>
  v.pipe(v.string(`${what} must be text`), v.trim(), v.nonEmpty(`${what} is required`));
const optionalText = v.optional(v.pipe(v.string(), v.trim()));
const integer = (what: string, min: number, max: number, fallback: number) =>
  v.optional(
    v.pipe(
      v.string(),
      v.trim(),
      v.regex(/^\d+$/, `${what} must be a whole number`),
      v.transform(Number),
      v.minValue(min, `${what} must be at least ${min}`),
      v.maxValue(max, `${what} must be at most ${max}`),
    ),
    String(fallback),
  );
const httpUrl = (what: string) =>
  v.pipe(text(what), v.url(`${what} must be a URL`), v.regex(/^https?:\/\//i, `${what} must be http(s)`));

const EnvSchema = v.pipe(
  v.object({
    [ENV.mode]: v.optional(
      v.picklist(['http', 'socket'], `${ENV.mode} must be "http" or "socket"`),
      DEFAULTS.mode,
    ),
    [ENV.botToken]: v.pipe(
      text(ENV.botToken),
      v.startsWith('xoxb-', `${ENV.botToken} must start with xoxb-`),
    ),
    [ENV.signingSecret]: optionalText,
    [ENV.appToken]: optionalText,
    [ENV.slackApiUrl]: v.optional(httpUrl(ENV.slackApiUrl)),
    [ENV.port]: integer(ENV.port, 0, 65_535, DEFAULTS.port),
    [ENV.host]: v.optional(text(ENV.host), DEFAULTS.host),
    [ENV.vaultUrl]: httpUrl(ENV.vaultUrl),
    [ENV.vaultApiKey]: text(ENV.vaultApiKey),
    [ENV.vaultTimeoutMs]: integer(ENV.vaultTimeoutMs, 100, 120_000, DEFAULTS.vaultTimeoutMs),
    [ENV.identityMode]: v.optional(
      v.picklist(['map', 'email'], `${ENV.identityMode} must be "map" or "email"`),
      DEFAULTS.identityMode,
    ),
    [ENV.identityMapFile]: optionalText,
    [ENV.userDirectoryFile]: optionalText,
    [ENV.revealSeconds]: integer(ENV.revealSeconds, 1, 3600, DEFAULTS.revealSeconds),
    [ENV.revealMode]: v.optional(
      v.picklist(['ephemeral', 'modal'], `${ENV.revealMode} must be "ephemeral" or "modal"`),
      DEFAULTS.revealMode,
    ),
    [ENV.revealLimit]: integer(ENV.revealLimit, 1, 10_000, DEFAULTS.revealLimit),
    [ENV.revealWindowSeconds]: integer(ENV.revealWindowSeconds, 1, 86_400, DEFAULTS.revealWindowSeconds),
    [ENV.accessCacheSeconds]: integer(ENV.accessCacheSeconds, 0, 3600, DEFAULTS.accessCacheSeconds),
    [ENV.pageSize]: integer(ENV.pageSize, 1, MAX_PAGE_SIZE, DEFAULTS.pageSize),
    [ENV.auditFile]: optionalText,
    [ENV.auditChannel]: v.optional(
      v.pipe(
        v.string(),
        v.trim(),
        v.regex(/^[CG][A-Z0-9]+$/, `${ENV.auditChannel} must be a channel id like C0123ABC`),
      ),
    ),
    [ENV.logLevel]: v.optional(
      v.picklist(['debug', 'info', 'warn', 'error'], `${ENV.logLevel} must be debug, info, warn or error`),
      DEFAULTS.logLevel,
    ),
  }),
  v.forward(
    v.partialCheck(
      [[ENV.mode], [ENV.signingSecret]],
      (env) => env[ENV.mode] !== 'http' || !!env[ENV.signingSecret],
      `${ENV.signingSecret} is required when ${ENV.mode}=http`,
    ),
    [ENV.signingSecret],
  ),
  v.forward(
    v.partialCheck(
      [[ENV.mode], [ENV.appToken]],
      (env) => env[ENV.mode] !== 'socket' || !!env[ENV.appToken]?.startsWith('xapp-'),
      `${ENV.appToken} (xapp-…) is required when ${ENV.mode}=socket`,
    ),
    [ENV.appToken],
  ),
  v.forward(
    v.partialCheck(
      [[ENV.identityMode], [ENV.identityMapFile]],
      (env) => env[ENV.identityMode] !== 'map' || !!env[ENV.identityMapFile],
      `${ENV.identityMapFile} is required when ${ENV.identityMode}=map`,
    ),
    [ENV.identityMapFile],
  ),
  v.forward(
    v.partialCheck(
      [[ENV.identityMode], [ENV.userDirectoryFile]],
      (env) => env[ENV.identityMode] !== 'email' || !!env[ENV.userDirectoryFile],
      `${ENV.userDirectoryFile} is required when ${ENV.identityMode}=email`,
    ),
    [ENV.userDirectoryFile],
  ),
);

/** The bot's settings, validated. */
export interface Config {
  mode: 'http' | 'socket';
  botToken: string;
  signingSecret: string;
  appToken: string;
  slackApiUrl: string | undefined;
  port: number;
  host: string;
  vaultUrl: string;
  vaultApiKey: string;
  vaultTimeoutMs: number;
  identity: { mode: 'map'; mapFile: string } | { mode: 'email'; directoryFile: string };
  revealSeconds: number;
  revealMode: 'ephemeral' | 'modal';
  revealLimit: number;
  revealWindowSeconds: number;
  accessCacheSeconds: number;
  pageSize: number;
  auditFile: string | undefined;
  auditChannel: string | undefined;
  logLevel: 'debug' | 'info' | 'warn' | 'error';
}

/**
 * Reads and validates the configuration once, at start.
 *
 * @param source The environment; `process.env` by default.
 * @returns The settings.
 * @throws {ConfigError} Listing every missing or malformed setting, never their values.
 */
export function readConfig(source: Readonly<Record<string, string | undefined>> = process.env): Config {
  const input: Record<string, string> = {};
  for (const key of Object.values(ENV)) {
    const value = source[key];
    if (value !== undefined && value.trim() !== '') input[key] = value;
  }
  const result = v.safeParse(EnvSchema, input);
  if (!result.success) {
    const problems = result.issues.map((issue) => {
      const key = v.getDotPath(issue);
      if (key && issue.type === 'object' && issue.input === undefined) return `${key} is required`;
      return key && !issue.message.includes(key) ? `${key}: ${issue.message}` : issue.message;
    });
    throw new ConfigError([...new Set(problems)]);
  }
  const env = result.output;
  return {
    mode: env[ENV.mode],
    botToken: env[ENV.botToken],
    signingSecret: env[ENV.signingSecret] ?? '',
    appToken: env[ENV.appToken] ?? '',
    slackApiUrl: env[ENV.slackApiUrl],
    port: env[ENV.port],
    host: env[ENV.host],
    vaultUrl: env[ENV.vaultUrl],
    vaultApiKey: env[ENV.vaultApiKey],
    vaultTimeoutMs: env[ENV.vaultTimeoutMs],
    identity:
      env[ENV.identityMode] === 'map'
        ? { mode: 'map', mapFile: env[ENV.identityMapFile] ?? '' }
        : { mode: 'email', directoryFile: env[ENV.userDirectoryFile] ?? '' },
    revealSeconds: env[ENV.revealSeconds],
    revealMode: env[ENV.revealMode],
    revealLimit: env[ENV.revealLimit],
    revealWindowSeconds: env[ENV.revealWindowSeconds],
    accessCacheSeconds: env[ENV.accessCacheSeconds],
    pageSize: env[ENV.pageSize],
    auditFile: env[ENV.auditFile],
    auditChannel: env[ENV.auditChannel],
    logLevel: env[ENV.logLevel],
  };
}
