/** The one slash command the bot answers. */
export const COMMAND = '/vault';

/** Subcommands of {@link COMMAND}. */
export const SUBCOMMANDS = {
  find: 'find',
  get: 'get',
  request: 'request',
  link: 'link',
  unlink: 'unlink',
  unblock: 'unblock',
  help: 'help',
} as const;

/**
 * Words people type to link an account (`/vault login alice …`): all of them are answered as
 * `link`, and never with what followed them.
 */
export const LINK_WORDS: readonly string[] = ['link', 'login', 'connect', 'signin'];

/** Block action ids. */
export const ACTIONS = {
  reveal: 'vault_reveal',
  showLogin: 'vault_show_login',
  openUrl: 'vault_open_url',
  page: 'vault_page',
  requestAccess: 'vault_request_access',
  approve: 'vault_request_approve',
  deny: 'vault_request_deny',
  homeSearch: 'vault_home_search',
  linkOpen: 'vault_link_open',
  linkModal: 'vault_link_modal',
  unlinkSelf: 'vault_unlink',
  findShortcut: 'vault_find_shortcut',
  findModal: 'vault_find_modal',
} as const;

/** The events the audit log records. */
export const AUDIT_EVENTS = {
  find: 'find',
  get: 'get',
  reveal: 'reveal',
  revealDenied: 'reveal_denied',
  revealLimited: 'reveal_rate_limited',
  showLogin: 'show_login',
  commandLimited: 'command_rate_limited',
  accessRequested: 'access_requested',
  accessApproved: 'access_approved',
  accessDenied: 'access_denied',
  accessRefused: 'access_decision_refused',
  accessExpired: 'access_request_expired',
  grantExpired: 'access_grant_expired',
  viewRefused: 'view_refused',
  accountLinked: 'account_linked',
  linkFailed: 'account_link_failed',
  accountUnlinked: 'account_unlinked',
  unlinkRefused: 'account_unlink_refused',
  linkTyped: 'link_typed_in_command',
  linkRefusedByVault: 'account_link_refused_by_vault',
  /** The vault locked sign-ins, or the bot's budget of failed sign-ins ran out: link attempts wait. */
  signInsPaused: 'vault_sign_ins_paused',
  /** A link admin lifted a member's block of link attempts (or was refused). */
  signInsUnblocked: 'link_attempts_unblocked',
} as const;

/** Where Slack posts events and commands in HTTP mode. */
export const EVENTS_PATH = '/slack/events';
/** The largest request accepted in HTTP mode; Slack's payloads (a message of 50 blocks at most) are far smaller. */
export const MAX_REQUEST_BYTES = 256 * 1024;
/** How far (s) a request's timestamp may be from the bot's clock, either way (Slack's own rule). */
export const MAX_REQUEST_SKEW_SECONDS = 5 * 60;
/** Slack's host for `response_url`s: https://api.slack.com/interactivity/handling#message_responses */
export const SLACK_HOOKS_ORIGIN = 'https://hooks.slack.com';
/** A liveness probe in HTTP mode. */
export const HEALTH_PATH = '/healthz';

/** Configuration keys (environment variables). */
export const ENV = {
  mode: 'SLACK_MODE',
  botToken: 'SLACK_BOT_TOKEN',
  signingSecret: 'SLACK_SIGNING_SECRET',
  appToken: 'SLACK_APP_TOKEN',
  slackApiUrl: 'SLACK_API_URL',
  port: 'PORT',
  host: 'HOST',
  vaultUrl: 'VAULT_URL',
  vaultApiKey: 'VAULT_API_KEY',
  vaultTimeoutMs: 'VAULT_TIMEOUT_MS',
  identityMode: 'IDENTITY_MODE',
  identityMapFile: 'IDENTITY_MAP_FILE',
  userDirectoryFile: 'VAULT_USER_DIRECTORY_FILE',
  revealSeconds: 'REVEAL_SECONDS',
  revealMode: 'REVEAL_MODE',
  revealLimit: 'REVEAL_RATE_LIMIT',
  revealWindowSeconds: 'REVEAL_RATE_WINDOW_SECONDS',
  accessCacheSeconds: 'ACCESS_CACHE_SECONDS',
  pageSize: 'PAGE_SIZE',
  auditFile: 'AUDIT_FILE',
  auditChannel: 'AUDIT_CHANNEL',
  auditSinks: 'VAULTLINE_AUDIT_SINKS',
  auditSinkToken: 'VAULTLINE_AUDIT_SINK_TOKEN',
  logLevel: 'LOG_LEVEL',
  dataDir: 'BOT_DATA_DIR',
  databaseUrl: 'BOT_DATABASE_URL',
  responseUrlOrigins: 'SLACK_RESPONSE_URL_ORIGINS',
  teamIds: 'SLACK_TEAM_IDS',
  appIds: 'SLACK_APP_IDS',
  identityTeamIds: 'IDENTITY_TEAM_IDS',
  identityAllowGuests: 'IDENTITY_ALLOW_GUESTS',
  commandLimit: 'COMMAND_RATE_LIMIT',
  commandWindowSeconds: 'COMMAND_RATE_WINDOW_SECONDS',
  approvers: 'APPROVERS',
  folderApprovers: 'APPROVERS_BY_FOLDER',
  approvalsChannel: 'APPROVALS_CHANNEL',
  requestExpirySeconds: 'REQUEST_EXPIRY_SECONDS',
  grantSeconds: 'GRANT_SECONDS',
  grantReveals: 'GRANT_REVEALS',
  linkKey: 'LINK_ENCRYPTION_KEY',
  linkPreviousKeys: 'LINK_PREVIOUS_KEYS',
  linkCredentials: 'LINK_CREDENTIALS',
  linkAdmins: 'LINK_ADMINS',
  failedSignInsPerDay: 'LINK_FAILED_SIGN_INS_PER_DAY',
  failedSignInsPerLogin: 'LINK_FAILED_SIGN_INS_PER_LOGIN',
  failedSignInsPerMember: 'LINK_FAILED_SIGN_INS_PER_MEMBER',
  signInLockSeconds: 'VAULT_SIGN_IN_LOCK_SECONDS',
} as const;

/** Defaults of the settings that have one. */
export const DEFAULTS = {
  mode: 'http',
  port: 3000,
  host: '0.0.0.0',
  vaultTimeoutMs: 10_000,
  identityMode: 'map',
  revealSeconds: 60,
  revealMode: 'ephemeral',
  revealLimit: 5,
  revealWindowSeconds: 60,
  accessCacheSeconds: 5,
  pageSize: 20,
  logLevel: 'info',
  dataDir: '.data/slack-bot',
  commandLimit: 10,
  commandWindowSeconds: 10,
  requestExpirySeconds: 3600,
  grantSeconds: 900,
  grantReveals: 1,
  linkCredentials: 'password',
  /**
   * Failed sign-ins (link attempts and linked accounts signing in again) the bot allows itself in
   * the last 24 h, all instances together: two thirds of TeamPass's default lockout of an address
   * (30 in 24 h), counted over the same window, the rest left to anyone else behind that address.
   */
  failedSignInsPerDay: 20,
  /**
   * Failed link attempts at one TeamPass login in the last 24 h, whoever makes them: half of
   * TeamPass's lockout of a login (10), the rest left to its own sign-in page; above one member's
   * cap, so that one colleague's guesses never keep its owner out.
   */
  failedSignInsPerLogin: 5,
  /** Failed link attempts by one member in the last 24 h, whatever the login: they block only themselves. */
  failedSignInsPerMember: 3,
  /** How long attempts at a login wait after TeamPass said it is locked (its default lock: 10 min). */
  signInLockSeconds: 600,
} as const;

/** Slack's limit of blocks in one message: https://api.slack.com/reference/block-kit/blocks */
export const SLACK_MAX_BLOCKS = 50;
/** Slack's limit of a section's text: https://api.slack.com/reference/block-kit/blocks#section */
export const SLACK_MAX_SECTION_TEXT = 3000;
/** Slack's limit of a button's url and value. */
export const SLACK_MAX_BUTTON_URL = 3000;
/** Slack's limit of an action's or a view's id fields (`action_id`, `block_id`, `callback_id`, `external_id`). */
export const SLACK_MAX_ACTION_ID = 255;
/** Slack's limit of a button's or an option's value. */
export const SLACK_MAX_ACTION_VALUE = 2000;
/** Slack's limit of a plain-text input's value (its largest `max_length`). */
export const SLACK_MAX_INPUT_VALUE = 3000;
/** Slack's limit of a view's `private_metadata`. */
export const SLACK_MAX_PRIVATE_METADATA = 3000;
/** Each listed item takes a section and an actions block; the rest is header and navigation. */
export const MAX_PAGE_SIZE = 23;
/** Longest label or path shown before it is shortened. */
export const MAX_SHOWN_TEXT = 300;
/** How long a Slack user's profile email is trusted, in ms. */
export const PROFILE_CACHE_MS = 10 * 60_000;
/** The most profile emails kept. */
export const PROFILE_CACHE_SIZE = 10_000;
/** How many commands are worked on at once after their ack; the rest wait their turn. */
export const AFTER_ACK_CONCURRENCY = 8;
/** Arrivals pausing this long (ms) let the work after acks start. */
export const ACK_QUIET_MS = 5;
/** The longest (ms) that work waits for arrivals to pause. */
export const ACK_MAX_DEFER_MS = 250;
/** How often (ms) each instance looks for redactions and requests that are due. */
export const SWEEP_INTERVAL_MS = 250;
/** How long (ms) an instance holds a due redaction it is running before another may take it. */
export const CLAIM_MS = 30_000;
/** How many audit records one audit-channel post carries at most. */
export const AUDIT_BATCH_SIZE = 20;
/** The longest (ms) an audit record waits in the queue before its post is tried. */
export const AUDIT_FLUSH_MS = 200;
/** The longest reason a request carries. */
export const MAX_REASON_LENGTH = 500;
/** How many recent reveals the App Home lists. */
export const HOME_RECENT_REVEALS = 10;
/** Link attempts (sign-ins with what a person typed) allowed per Slack user per window. */
export const LINK_ATTEMPTS = 5;
/** The window of {@link LINK_ATTEMPTS}, in seconds. */
export const LINK_ATTEMPT_WINDOW_SECONDS = 15 * 60;
/** The most linked accounts' clients (each with its session) kept at once; the least recently used go first. */
export const MAX_LINKED_CLIENTS = 500;
/** A linked account's client unused this long (ms) is let go (its token stays in the store). */
export const LINKED_CLIENT_IDLE_MS = 15 * 60_000;
/**
 * How a linked account's client waits out the vault's 429: once, and only a short wait (a person
 * is waiting for the answer; TeamPass's `Retry-After` often names the end of the minute).
 */
export const LINKED_RATE_LIMIT_RETRY = { maxRetryAfterMs: 3000, rateLimitRetries: 1 } as const;
/** The longest login, password, API key or personal access token the link modal takes. */
export const LINK_INPUT_MAX = { login: 200, password: 1000, apiKey: 200, token: 200 } as const;
