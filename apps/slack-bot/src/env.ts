import { parseSinks, type SinkSpec } from '@vaultline/audit-stream';
import * as v from 'valibot';
import { DEFAULTS, ENV, MAX_PAGE_SIZE, SLACK_HOOKS_ORIGIN } from './constants.ts';
import { parseLinkKey } from './linking/sealer.ts';

/** Why a sink list does not parse, or `undefined`. */
function sinkProblem(text: string): string | undefined {
  try {
    parseSinks(text, ENV.auditSinks);
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
}

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
const SLACK_ID = /^[UWS][A-Z0-9]{2,30}$/;
const idList = (what: string, pattern: RegExp, example: string) =>
  v.optional(
    v.pipe(
      v.string(),
      v.transform((value) => value.split(/[\s,]+/).filter(Boolean)),
      v.check((ids) => ids.every((id) => pattern.test(id)), `${what} must list ids like ${example}`),
    ),
  );
const boolean = (what: string) =>
  v.optional(
    v.pipe(
      v.picklist(['true', 'false'], `${what} must be "true" or "false"`),
      v.transform((value) => value === 'true'),
    ),
    'false',
  );
const folderApprovers = v.optional(
  v.pipe(
    v.string(),
    v.transform((value) =>
      value
        .split(';')
        .map((entry) => entry.trim())
        .filter(Boolean)
        .map((entry) => {
          const [folder = '', ids = ''] = entry.split('=');
          return [folder.trim(), ids.split(/[\s,]+/).filter(Boolean)] as const;
        }),
    ),
    v.check(
      (entries) =>
        entries.every(
          ([folder, ids]) =>
            /^\d{1,15}$/.test(folder) && ids.length > 0 && ids.every((id) => SLACK_ID.test(id)),
        ),
      `${ENV.folderApprovers} must look like "12=U0123ABC,U0456DEF; 14=S0789GHI"`,
    ),
  ),
);
const KEY_ADVICE = '32 random bytes in base64 (for example from "openssl rand -base64 32")';
const linkKeys = (what: string, many: boolean) =>
  v.optional(
    v.pipe(
      v.string(),
      v.transform((value) => (many ? value.split(/[\s,]+/).filter(Boolean) : [value])),
      v.check(
        (keys) => keys.every((key) => parseLinkKey(key) !== undefined),
        many ? `${what} must list keys of ${KEY_ADVICE}` : `${what} must be ${KEY_ADVICE}`,
      ),
    ),
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
    [ENV.vaultApiKey]: optionalText,
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
    [ENV.auditSinks]: v.optional(
      v.pipe(
        v.string(),
        v.check(
          (text) => sinkProblem(text) === undefined,
          (issue) => sinkProblem(String(issue.input)) ?? '',
        ),
        v.transform((text) => parseSinks(text, ENV.auditSinks)),
      ),
      '',
    ),
    [ENV.auditSinkToken]: optionalText,
    [ENV.logLevel]: v.optional(
      v.picklist(['debug', 'info', 'warn', 'error'], `${ENV.logLevel} must be debug, info, warn or error`),
      DEFAULTS.logLevel,
    ),
    [ENV.dataDir]: v.optional(text(ENV.dataDir), DEFAULTS.dataDir),
    [ENV.databaseUrl]: v.optional(
      v.pipe(
        text(ENV.databaseUrl),
        v.regex(/^postgres(ql)?:\/\//, `${ENV.databaseUrl} must be a postgres:// URL`),
      ),
    ),
    [ENV.responseUrlOrigins]: v.optional(
      v.pipe(
        v.string(),
        v.transform((value) => value.split(/[\s,]+/).filter(Boolean)),
        v.check(
          (origins) =>
            origins.length > 0 &&
            origins.every((origin) => {
              try {
                return /^https?:$/.test(new URL(origin).protocol) && new URL(origin).origin === origin;
              } catch {
                return false;
              }
            }),
          `${ENV.responseUrlOrigins} must list origins like https://hooks.slack.com`,
        ),
      ),
      SLACK_HOOKS_ORIGIN,
    ),
    [ENV.teamIds]: idList(ENV.teamIds, /^[TE][A-Z0-9]{1,30}$/, 'T0123ABC'),
    [ENV.appIds]: idList(ENV.appIds, /^A[A-Z0-9]{1,30}$/, 'A0123ABC'),
    [ENV.identityTeamIds]: idList(ENV.identityTeamIds, /^[TE][A-Z0-9]{1,30}$/, 'T0123ABC'),
    [ENV.identityAllowGuests]: boolean(ENV.identityAllowGuests),
    [ENV.commandLimit]: integer(ENV.commandLimit, 1, 10_000, DEFAULTS.commandLimit),
    [ENV.commandWindowSeconds]: integer(ENV.commandWindowSeconds, 1, 3600, DEFAULTS.commandWindowSeconds),
    [ENV.approvers]: idList(ENV.approvers, SLACK_ID, 'U0123ABC or a user group S0123ABC'),
    [ENV.folderApprovers]: folderApprovers,
    [ENV.approvalsChannel]: v.optional(
      v.pipe(
        v.string(),
        v.trim(),
        v.regex(/^[CG][A-Z0-9]+$/, `${ENV.approvalsChannel} must be a channel id like C0123ABC`),
      ),
    ),
    [ENV.requestExpirySeconds]: integer(
      ENV.requestExpirySeconds,
      1,
      7 * 86_400,
      DEFAULTS.requestExpirySeconds,
    ),
    [ENV.grantSeconds]: integer(ENV.grantSeconds, 1, 86_400, DEFAULTS.grantSeconds),
    [ENV.grantReveals]: integer(ENV.grantReveals, 1, 100, DEFAULTS.grantReveals),
    [ENV.linkKey]: linkKeys(ENV.linkKey, false),
    [ENV.linkPreviousKeys]: linkKeys(ENV.linkPreviousKeys, true),
    [ENV.linkCredentials]: v.optional(
      v.picklist(
        ['password', 'token', 'both'],
        `${ENV.linkCredentials} must be "password", "token" or "both"`,
      ),
      DEFAULTS.linkCredentials,
    ),
    [ENV.linkAdmins]: idList(ENV.linkAdmins, SLACK_ID, 'U0123ABC or a user group S0123ABC'),
    [ENV.failedSignInsPerDay]: integer(ENV.failedSignInsPerDay, 1, 1000, DEFAULTS.failedSignInsPerDay),
    [ENV.failedSignInsPerLogin]: integer(ENV.failedSignInsPerLogin, 1, 100, DEFAULTS.failedSignInsPerLogin),
    [ENV.failedSignInsPerMember]: integer(
      ENV.failedSignInsPerMember,
      1,
      100,
      DEFAULTS.failedSignInsPerMember,
    ),
    [ENV.signInLockSeconds]: integer(ENV.signInLockSeconds, 1, 86_400, DEFAULTS.signInLockSeconds),
  }),
  v.forward(
    v.partialCheck(
      [[ENV.vaultApiKey], [ENV.linkKey]],
      (env) => !!env[ENV.vaultApiKey] || !!env[ENV.linkKey],
      `${ENV.vaultApiKey} is required (or ${ENV.linkKey}, where each person links their own vault account)`,
    ),
    [ENV.vaultApiKey],
  ),
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
      [[ENV.identityMode], [ENV.identityMapFile], [ENV.linkKey]],
      (env) => env[ENV.identityMode] !== 'map' || !!env[ENV.identityMapFile] || !!env[ENV.linkKey],
      `${ENV.identityMapFile} is required when ${ENV.identityMode}=map (unless each person links their own vault account: ${ENV.linkKey})`,
    ),
    [ENV.identityMapFile],
  ),
  v.forward(
    v.partialCheck(
      [[ENV.identityMode], [ENV.userDirectoryFile], [ENV.linkKey]],
      (env) => env[ENV.identityMode] !== 'email' || !!env[ENV.userDirectoryFile] || !!env[ENV.linkKey],
      `${ENV.userDirectoryFile} is required when ${ENV.identityMode}=email (unless each person links their own vault account: ${ENV.linkKey})`,
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
  /** The bot's key, where one key reads every person's rights; unused where people link their accounts. */
  vaultApiKey: string | undefined;
  vaultTimeoutMs: number;
  identity:
    | { mode: 'map'; mapFile: string }
    | {
        mode: 'email';
        directoryFile: string;
        /** Workspaces whose full members may be mapped by email; the installing one when undefined. */
        teamIds: readonly string[] | undefined;
        /** Whether guests (restricted accounts) may be mapped by email. */
        allowGuests: boolean;
      };
  revealSeconds: number;
  revealMode: 'ephemeral' | 'modal';
  revealLimit: number;
  revealWindowSeconds: number;
  accessCacheSeconds: number;
  pageSize: number;
  auditFile: string | undefined;
  auditChannel: string | undefined;
  /** Where audit records are streamed too (the vault server's `VAULTLINE_AUDIT_SINKS`). */
  auditSinks: readonly SinkSpec[];
  /** The bearer token of HTTP audit sinks. */
  auditSinkToken: string | undefined;
  logLevel: 'debug' | 'info' | 'warn' | 'error';
  /** The bot's store: a PGlite data directory, or PostgreSQL shared by several bot processes. */
  store: { kind: 'pglite'; dataDir: string } | { kind: 'postgres'; url: string };
  /** Origins `response_url`s may point to. */
  responseUrlOrigins: readonly string[];
  /** Workspaces served; the one that installed the bot (`auth.test` at start) when undefined. */
  teamIds: readonly string[] | undefined;
  /** Slack apps served; all when undefined. */
  appIds: readonly string[] | undefined;
  commandLimit: number;
  commandWindowSeconds: number;
  /** Who approves access requests: Slack user ids and user group ids. */
  approvers: readonly string[];
  /** Approvers per folder id, instead of the default ones. */
  folderApprovers: ReadonlyMap<number, readonly string[]>;
  /** Where requests go; a DM to each approver when undefined. */
  approvalsChannel: string | undefined;
  requestExpirySeconds: number;
  grantSeconds: number;
  grantReveals: number;
  /**
   * Where each person links their own vault account (a vault whose keys read only their own user's
   * rights): the key the linked credentials are sealed with, and earlier keys that still open them.
   * Undefined when not configured. Secrets: never logged.
   */
  link: { key: Buffer; previousKeys: readonly Buffer[] } | undefined;
  /** What the link modal asks for: password and API key, a personal access token, or either. */
  linkCredentials: 'password' | 'token' | 'both';
  /** Who may unlink another person's account: Slack user ids and user group ids. */
  linkAdmins: readonly string[];
  /**
   * Failed sign-ins the bot allows itself in the last 24 h, all instances together (link attempts
   * and linked accounts signing in again): keep it under the vault's lockout of an address.
   */
  failedSignInsPerDay: number;
  /** Failed link attempts at one vault login in the last 24 h, whoever makes them. */
  failedSignInsPerLogin: number;
  /** Failed link attempts by one Slack member in the last 24 h, whatever the login. */
  failedSignInsPerMember: number;
  /** How long (s) attempts at a login wait after the vault said it is locked (it does not say). */
  signInLockSeconds: number;
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
  const databaseUrl = env[ENV.databaseUrl];
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
        : {
            mode: 'email',
            directoryFile: env[ENV.userDirectoryFile] ?? '',
            teamIds: env[ENV.identityTeamIds],
            allowGuests: env[ENV.identityAllowGuests],
          },
    revealSeconds: env[ENV.revealSeconds],
    revealMode: env[ENV.revealMode],
    revealLimit: env[ENV.revealLimit],
    revealWindowSeconds: env[ENV.revealWindowSeconds],
    accessCacheSeconds: env[ENV.accessCacheSeconds],
    pageSize: env[ENV.pageSize],
    auditFile: env[ENV.auditFile],
    auditChannel: env[ENV.auditChannel],
    auditSinks: env[ENV.auditSinks],
    auditSinkToken: env[ENV.auditSinkToken],
    logLevel: env[ENV.logLevel],
    store: databaseUrl
      ? { kind: 'postgres', url: databaseUrl }
      : { kind: 'pglite', dataDir: env[ENV.dataDir] },
    responseUrlOrigins: env[ENV.responseUrlOrigins],
    teamIds: env[ENV.teamIds],
    appIds: env[ENV.appIds],
    commandLimit: env[ENV.commandLimit],
    commandWindowSeconds: env[ENV.commandWindowSeconds],
    approvers: env[ENV.approvers] ?? [],
    folderApprovers: new Map((env[ENV.folderApprovers] ?? []).map(([folder, ids]) => [Number(folder), ids])),
    approvalsChannel: env[ENV.approvalsChannel],
    requestExpirySeconds: env[ENV.requestExpirySeconds],
    grantSeconds: env[ENV.grantSeconds],
    grantReveals: env[ENV.grantReveals],
    link: linkOf(env[ENV.linkKey], env[ENV.linkPreviousKeys]),
    linkCredentials: env[ENV.linkCredentials],
    linkAdmins: env[ENV.linkAdmins] ?? [],
    failedSignInsPerDay: env[ENV.failedSignInsPerDay],
    failedSignInsPerLogin: env[ENV.failedSignInsPerLogin],
    failedSignInsPerMember: env[ENV.failedSignInsPerMember],
    signInLockSeconds: env[ENV.signInLockSeconds],
  };
}

function linkOf(key: readonly string[] | undefined, previous: readonly string[] | undefined): Config['link'] {
  const current = key?.[0] === undefined ? undefined : parseLinkKey(key[0]);
  if (!current) return undefined;
  return {
    key: current,
    previousKeys: (previous ?? []).flatMap((text) => parseLinkKey(text) ?? []),
  };
}
