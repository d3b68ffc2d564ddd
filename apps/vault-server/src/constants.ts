/** Settings and fixed values of the vault server, in one place. */

import type { VaultErrorCode } from '@vaultline/protocol';

/** Default TCP port of `start` and `quickstart`. */
export const DEFAULT_PORT = 7700;
/** Default bind address: loopback only unless told otherwise. */
export const DEFAULT_HOST = '127.0.0.1';
/** Longest request URL accepted, in bytes (path + query). Longer gets 414. */
export const DEFAULT_MAX_URL_LENGTH = 16_384;
/** Largest attachment accepted by add/file. */
export const DEFAULT_MAX_FILE_BYTES = 25 * 1024 * 1024;
/**
 * Attachment transfers (add/file and read/files together) one server runs at once; one more is
 * answered 503 at once. Each holds about one chunk (see `crypto/chunk-cipher.ts`) in memory.
 */
export const DEFAULT_MAX_TRANSFERS = 8;
/**
 * How long an attachment transfer may move no byte (an upload whose client stopped sending, a
 * download whose client stopped reading) before it gives its place back and its socket is closed.
 */
export const DEFAULT_TRANSFER_IDLE_MS = 30_000;
/**
 * The least an attachment transfer must move per second, measured over each window of the idle
 * bound: below it, it gives its place back and its socket is closed. 64 KiB/s (512 kbit/s), so that
 * holding the 8 places costs a client 4 Mbit/s sustained (two keys reading 1 MiB every 20 s, about
 * 51 KiB/s each, held them all).
 */
export const DEFAULT_TRANSFER_MIN_RATE = 64 * 1024;
/**
 * How long a client may take to send a whole request (headers and body), in ms: past it the
 * request is answered 408 and its socket closed (so that an upload whose client stopped sending
 * fails, and gives its transfer place back).
 */
export const DEFAULT_REQUEST_TIMEOUT_MS = 120_000;
/** The `Retry-After` of a transfer refused at the bound, in seconds. */
export const TRANSFER_RETRY_AFTER_S = 1;
/** Requests per client address per minute. */
export const DEFAULT_RATE_LIMIT_PER_MINUTE = 1_200;
/** Failed API keys per client address per 15 minutes before the address is refused. */
export const DEFAULT_FAILED_KEY_LIMIT = 10;
/** The window of the failed-key limit. */
export const FAILED_KEY_WINDOW_MS = 15 * 60 * 1000;
/** The table of the request and failed-key counters on PostgreSQL (created by schema migration 6). */
export const RATE_LIMIT_TABLE = 'vaultline_rate_limits';
/** Upstream mode: the table of the upstream accounts' pace on PostgreSQL (created by schema migration 17). */
export const UPSTREAM_PACE_TABLE = 'vaultline_upstream_pace';
/** How long an authenticated key, the folder tree and the rights are kept in memory. */
export const DEFAULT_CACHE_TTL_MS = 1_000;
/** How long a graceful shutdown waits for requests in flight. */
export const SHUTDOWN_GRACE_MS = 10_000;

/** Longest item label, in characters. */
export const MAX_LABEL_LENGTH = 500;
/** Longest password, in characters. */
export const MAX_PASSWORD_LENGTH = 4_096;
/** Longest other item value (description, url, …), in characters. */
export const MAX_VALUE_LENGTH = 8_192;
/** Longest folder title, in characters. */
export const MAX_TITLE_LENGTH = 255;
/** Longest login, in characters (the search string: the core's `MAX_SEARCH_LENGTH`, in code points). */
export const MAX_LOGIN_LENGTH = 100;
/** Longest attachment name kept, in characters. */
export const MAX_FILE_NAME_LENGTH = 200;
/** Most items find/item answers. */
export const MAX_FIND_RESULTS = 1_000;
/** Most ids in one id list. */
export const MAX_IDS_PER_CALL = 1_000;
/** Deepest folder tree. */
export const MAX_FOLDER_DEPTH = 32;

/** Path prefixes the API answers on. */
export const API_PREFIXES = ['/api/index.php', '/api'] as const;

/** Name of the key file `quickstart` keeps in the data directory (a demo convenience). */
export const QUICKSTART_KEY_FILE = 'quickstart-admin.key';
/** Name of the master key file in the data directory. */
export const MASTER_KEY_FILE = 'master.key';
/** Name of the lock file that keeps two processes off one PGlite directory. */
export const LOCK_FILE = 'vaultline.lock';

/** The admin control channel's socket in a PGlite data directory, while a server runs on it. */
export const ADMIN_SOCKET = 'admin.sock';
/** Prefix of every API key: makes keys recognisable in leak scanners. */
export const API_KEY_PREFIX = 'vlk_';

/** HTTP status of each error code the server answers with. */
export const STATUS_OF: Readonly<Partial<Record<VaultErrorCode, number>>> = {
  invalid_request: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  duplicate_label: 409,
  too_large: 413,
  rate_limited: 429,
  api_disabled: 403,
  unsupported: 501,
  server: 500,
};

/** Longest folder renewal period, in months. */
export const MAX_RENEWAL_MONTHS = 1_200;
/** How long audit records of reads may wait to be written together. */
export const AUDIT_BATCH_DELAY_MS = 50;
/** The most audit records of reads written in one statement. */
export const AUDIT_BATCH_SIZE = 1_000;
/** How long after a failed batch of audit records it is written again, in ms. */
export const AUDIT_RETRY_MS = 500;
/** How long caches that are exact (PGlite: this process is the only writer) keep entries. */
export const COHERENT_CACHE_TTL_MS = 60 * 60 * 1000;

/** Audit actions that are not API operations. */
export const AUDIT_AUTH_FAILED = 'auth/failed';

/** Log lines are gathered up to this many bytes: one write per batch instead of one per request. */
export const LOG_BUFFER_BYTES = 4_096;
/** The longest a gathered log line waits before it is written. */
export const LOG_FLUSH_MS = 100;

/** Upstream mode: the time a caller is given for its upstream work: below the CLI's 10 s timeout, so the server answers first. */
export const DEFAULT_UPSTREAM_DEADLINE_MS = 8_000;

/** Upstream mode: what TeamPass may count of an account's calls in its minute, below its default limit of 120 (`TEAMPASS3_CALLS_PER_MINUTE`); paced by `paceBelowTeamPass3`. */
export const DEFAULT_UPSTREAM_CALLS_PER_MINUTE = 100;
