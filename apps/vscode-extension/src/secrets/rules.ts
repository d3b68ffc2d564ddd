/**
 * The one table of secret-detection rules. Each row names a credential format, the regular
 * expression that finds it (the group `secret` is the literal to replace; without it, the whole
 * match), a cheap lower-case keyword that must occur in the text before the expression runs, and
 * where the format is documented. Rows are tried in order; an earlier row wins an overlap.
 *
 * Known formats come first: they carry a fixed prefix, so a match is already strong evidence.
 * Then {@link ASSIGNMENT_RULES}: a string assigned to a credential-like name (`password = "…"`,
 * `API_TOKEN=…`, `"secret": "…"`) that looks random enough for that kind of name. Every finding
 * then passes {@link PLACEHOLDERS} (`example`, `${VAR}`, `xxxx`, …), which drop documentation values.
 *
 * The table follows the token formats of secretlint's recommended preset and of gitleaks, whose
 * rules were the reference; see README "Secret detection" for why the extension keeps its own.
 */
export interface SecretRule {
  /** Stable id, shown as the diagnostic's code. */
  readonly id: string;
  /** What was found, as the diagnostic says it ("GitHub token"). */
  readonly title: string;
  /** Lower-case texts one of which every match contains; the expression runs only if one occurs. */
  readonly keywords: readonly string[];
  /** A global expression; the named group `secret`, when present, is the literal to replace. */
  readonly pattern: RegExp;
  /** An extra check on the literal, for formats with a checkable structure (JWT). */
  readonly verify?: (secret: string) => boolean;
  /** Where the format is described. */
  readonly source: string;
}

/** A JWT's header must decode to a JSON object with an `alg`: plain `eyJ…` runs are not tokens. */
function isJwt(token: string): boolean {
  const header = token.slice(0, token.indexOf('.'));
  try {
    const json = atob(header.replace(/-/g, '+').replace(/_/g, '/'));
    const parsed: unknown = JSON.parse(json);
    return typeof parsed === 'object' && parsed !== null && 'alg' in parsed;
  } catch {
    return false;
  }
}

/** Basic credentials decode to `user:password`. */
function isBasicCredentials(encoded: string): boolean {
  try {
    return /^[^:\s]+:\S{3,}$/.test(atob(encoded));
  } catch {
    return false;
  }
}

/** Schemes whose URLs carry a database, queue or mail password in `user:password@`. */
const CONNECTION_SCHEMES =
  'postgres(?:ql)?|mysql|mariadb|mongodb(?:\\+srv)?|rediss?|amqps?|mssql|sqlserver|jdbc:[a-z]+|clickhouse|cockroachdb|couchdb|neo4j(?:\\+s)?|ldaps?|smtps?|ftps?|sftp';

/** The rules, in priority order. */
export const SECRET_RULES: readonly SecretRule[] = [
  {
    id: 'private-key',
    title: 'private key',
    keywords: ['private key'],
    // The body must hold real base64 (≥ 40 characters); `-----BEGIN PRIVATE KEY-----\n...` is not a key.
    pattern:
      /(?<secret>-----BEGIN[ A-Z0-9]*PRIVATE KEY(?: BLOCK)?-----(?:\r?\n|\\n)(?:[A-Za-z0-9+/=:,\- ]*(?:\r?\n|\\n))*?[A-Za-z0-9+/=]{40,}[\s\S]{0,8000}?-----END[ A-Z0-9]*PRIVATE KEY(?: BLOCK)?-----)/dg,
    source: 'https://www.rfc-editor.org/rfc/rfc7468',
  },
  {
    id: 'aws-access-key-id',
    title: 'AWS access key id',
    keywords: ['akia', 'asia', 'abia', 'acca', 'a3t'],
    pattern: /(?<![A-Za-z0-9])(?<secret>(?:AKIA|ASIA|ABIA|ACCA|A3T[A-Z0-9])[A-Z2-7]{16})(?![A-Za-z0-9])/dg,
    source:
      'https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_identifiers.html#identifiers-unique-ids',
  },
  {
    id: 'gcp-api-key',
    title: 'Google Cloud API key',
    keywords: ['aiza'],
    pattern: /(?<![A-Za-z0-9])(?<secret>AIza[0-9A-Za-z_-]{35})(?![A-Za-z0-9_-])/dg,
    source: 'https://cloud.google.com/docs/authentication/api-keys',
  },
  {
    id: 'github-token',
    title: 'GitHub token',
    keywords: ['gh'],
    pattern: /(?<![A-Za-z0-9_])(?<secret>gh[pousr]_[A-Za-z0-9]{36,251})(?![A-Za-z0-9_])/dg,
    source:
      'https://github.blog/engineering/platform-security/behind-githubs-new-authentication-token-formats/',
  },
  {
    id: 'github-fine-grained-token',
    title: 'GitHub fine-grained token',
    keywords: ['github_pat_'],
    pattern: /(?<![A-Za-z0-9_])(?<secret>github_pat_[A-Za-z0-9]{22}_[A-Za-z0-9]{59})(?![A-Za-z0-9_])/dg,
    source:
      'https://docs.github.com/en/authentication/keeping-your-account-and-data-secure/managing-your-personal-access-tokens',
  },
  {
    id: 'gitlab-token',
    title: 'GitLab token',
    keywords: ['gl'],
    pattern:
      /(?<![A-Za-z0-9_-])(?<secret>gl(?:pat|dt|rt|ptt|ft|cbt|oas|soat|imt|agent)-[A-Za-z0-9_-]{20,})(?![A-Za-z0-9_-])/dg,
    source: 'https://docs.gitlab.com/security/tokens/#token-prefixes',
  },
  {
    id: 'slack-token',
    title: 'Slack token',
    keywords: ['xox'],
    pattern:
      /(?<![A-Za-z0-9])(?<secret>xox[abposre]-(?:\d+-)+[A-Za-z0-9]{10,64}(?:-[A-Za-z0-9]+)*)(?![A-Za-z0-9-])/dg,
    source: 'https://api.slack.com/authentication/token-types',
  },
  {
    id: 'slack-app-token',
    title: 'Slack app-level token',
    keywords: ['xapp-'],
    pattern: /(?<![A-Za-z0-9])(?<secret>xapp-\d-[A-Z0-9]{9,12}-\d{10,16}-[a-f0-9]{40,80})(?![A-Za-z0-9])/dg,
    source: 'https://api.slack.com/authentication/token-types#app-level',
  },
  {
    id: 'slack-webhook',
    title: 'Slack incoming webhook URL',
    keywords: ['hooks.slack.com'],
    pattern:
      /(?<secret>https:\/\/hooks\.slack\.com\/(?:services|workflows|triggers)\/T[A-Z0-9]{8,12}\/[A-Z0-9]{8,12}\/[A-Za-z0-9]{20,40})/dg,
    source: 'https://api.slack.com/messaging/webhooks',
  },
  {
    id: 'stripe-key',
    title: 'Stripe secret key',
    keywords: ['k_'],
    pattern: /(?<![A-Za-z0-9_])(?<secret>(?:sk|rk)_(?:live|test)_[0-9A-Za-z]{24,247})(?![A-Za-z0-9_])/dg,
    source: 'https://docs.stripe.com/keys#obtain-api-keys',
  },
  {
    id: 'stripe-webhook-secret',
    title: 'Stripe webhook signing secret',
    keywords: ['whsec_'],
    pattern: /(?<![A-Za-z0-9_])(?<secret>whsec_[0-9A-Za-z]{32,64})(?![A-Za-z0-9_])/dg,
    source: 'https://docs.stripe.com/webhooks#verify-official-libraries',
  },
  {
    id: 'jwt',
    title: 'JSON Web Token',
    keywords: ['eyj'],
    pattern:
      /(?<![A-Za-z0-9_-])(?<secret>eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{16,})(?![A-Za-z0-9_.-])/dg,
    verify: isJwt,
    source: 'https://www.rfc-editor.org/rfc/rfc7519',
  },
  {
    id: 'basic-auth-header',
    title: 'HTTP Basic credentials',
    keywords: ['basic '],
    pattern:
      /authorization:?[ \t]*["']?[ \t]*basic[ \t]+(?<secret>[A-Za-z0-9+/]{12,}={0,2})(?![A-Za-z0-9+/=])/dgi,
    verify: isBasicCredentials,
    source: 'https://www.rfc-editor.org/rfc/rfc7617',
  },
  {
    id: 'connection-string',
    title: 'connection string with a password',
    keywords: ['://'],
    // The whole URL is the secret: replaced by one reference, it resolves to a working URL again.
    pattern: new RegExp(
      `(?<![A-Za-z0-9+])(?<secret>(?:${CONNECTION_SCHEMES})://[^\\s:/@'"\`]{1,128}:(?<password>[^\\s@'"\`/]{3,256})@[^\\s'"\`<>]+)`,
      'dgi',
    ),
    source: 'https://www.postgresql.org/docs/current/libpq-connect.html#LIBPQ-CONNSTRING-URIS',
  },
];

/** A kind of credential-like name and how random a value assigned to it must look. */
export interface AssignmentRule {
  readonly id: string;
  readonly title: string;
  /** Words of the name (split at `_`, `-`, `.` and camelCase, lower-cased); one must occur. */
  readonly words: readonly string[];
  /** Word pairs that also qualify (`api key`, `access key`): a lone `key` is too common. */
  readonly pairs?: readonly (readonly [string, string])[];
  /** Shortest value, in characters. */
  readonly minLength: number;
  /** Least Shannon entropy of the value, in bits per character. */
  readonly minEntropy: number;
  /** Least number of character classes (lower, upper, digit, other). */
  readonly minClasses: number;
}

/**
 * Credential-like names, strictest last. Passwords are chosen by people: shorter and less random
 * than tokens (`Pg-Pr0d#2024` has 3.4 bits per character), so they need three character classes
 * instead; tokens and keys are generated: long and random (32 hex digits: about 3.8 bits).
 */
export const ASSIGNMENT_RULES: readonly AssignmentRule[] = [
  {
    id: 'password-assignment',
    title: 'password in a credential-like assignment',
    words: ['password', 'passwd', 'pass', 'pwd', 'pw', 'passphrase', 'passcode', 'pswd'],
    minLength: 8,
    minEntropy: 2.5,
    minClasses: 3,
  },
  {
    id: 'secret-assignment',
    title: 'secret in a credential-like assignment',
    words: ['secret', 'token', 'apikey', 'credential', 'credentials', 'auth', 'pat', 'bearer', 'sas'],
    pairs: [
      ['api', 'key'],
      ['access', 'key'],
      ['secret', 'key'],
      ['private', 'key'],
      ['signing', 'key'],
      ['encryption', 'key'],
      ['master', 'key'],
      ['account', 'key'],
      ['client', 'key'],
      ['app', 'key'],
      ['license', 'key'],
    ],
    minLength: 16,
    minEntropy: 3.3,
    minClasses: 2,
  },
];

/**
 * The last word of a name that says the value is *about* a credential, not one
 * (`password_url`, `tokenType`, `secretName`, `PASSWORD_MIN_LENGTH`).
 */
export const DESCRIPTIVE_NAME_ENDINGS: ReadonlySet<string> = new Set([
  ...['url', 'uri', 'endpoint', 'host', 'domain', 'path', 'file', 'dir', 'name', 'names', 'id', 'ids'],
  ...['length', 'len', 'size', 'min', 'max', 'count', 'ttl', 'timeout', 'expiry', 'expires', 'age'],
  ...['type', 'kind', 'field', 'label', 'prompt', 'hint', 'placeholder', 'title', 'text', 'message'],
  ...['msg', 'error', 'description', 'desc', 'regex', 'pattern', 'policy', 'format', 'header'],
  ...['hash', 'digest', 'salt', 'mode', 'enabled', 'required', 'env', 'var', 'ref', 'prefix'],
  ...['suffix', 'input', 'param', 'icon', 'class', 'style', 'version', 'scope', 'scopes', 'usage'],
]);

/**
 * Values that stand for a credential instead of being one: templates and variables, redaction,
 * the words documentation uses, runs of one character, Vaultline references.
 */
export const PLACEHOLDERS: readonly RegExp[] = [
  /\$\{|\{\{|%\(|\$\(|^\$[A-Za-z_]|^%[A-Za-z_]+%$|^<[^>]*>$|^\[[^\]]*\]$/,
  /example|sample|placeholder|dummy|changeme|change_me|redacted|your[_-]|insert[_-]|replace[_-]?me|^todo|^fixme|^none$|^null$|^undefined$|^true$|^false$/i,
  /password|passwd|secret|token|\*{3}|\.{3}|…/i,
  /(.)\1{5,}/,
  /^vaultline:/i,
];
