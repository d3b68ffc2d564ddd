import { appendFile } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import type { webApi } from '@slack/bolt';
import type { AuditStream } from '@vaultline/audit-stream';
import type { Logger } from 'pino';
import { AUDIT_BATCH_SIZE, type AUDIT_EVENTS, AUDIT_FLUSH_MS } from './constants.ts';
import { escapeText } from './escape.ts';

/** One audit record. Never holds a password or any other item value but the label. */
export interface AuditRecord {
  /** What happened. */
  event: (typeof AUDIT_EVENTS)[keyof typeof AUDIT_EVENTS];
  /** The Slack user id. */
  slackUser: string;
  /** The Slack team (workspace) id. */
  slackTeam: string | undefined;
  /** The vault login the Slack user maps to, when there is one. */
  login: string | undefined;
  /**
   * What a failed link attempt or a pause of sign-ins was about when no confirmed login names it:
   * the login's keyed reference (`login#…`), never what was typed.
   */
  target?: string | undefined;
  /** The channel the command or click came from. */
  channel: string | undefined;
  /** The item, for get and reveal. */
  itemId?: number | undefined;
  /** The item's label, for get and reveal. */
  label?: string | undefined;
  /** The query, for find and get. */
  query?: string | undefined;
  /** How many items were shown, for find and get. */
  results?: number | undefined;
  /** The access request, for its steps. */
  requestId?: string | undefined;
  /** Who decided an access request (for an unlink: the admin who did it). */
  decidedBy?: string | undefined;
  /**
   * Whose vault account read the value, when not the person's own (an approved reveal where
   * people link their accounts: the approver's login).
   */
  readAs?: string | undefined;
  /** What came of it: `attempt`, `shown`, `delivery_failed`, `error:<code>`, why it was refused… */
  outcome?: string | undefined;
}

/** Writes audit records. */
export interface AuditLog {
  /**
   * Records an event: one JSON line, written before this resolves; the post to the audit channel
   * is queued and sent on its own (batched, retried), so nobody's answer waits for it.
   *
   * @param record The event.
   */
  record(record: AuditRecord): Promise<void>;
  /** Sends what is queued for the audit channel and the audit stream, waiting at most `ms` (at shutdown). */
  flush(ms: number): Promise<void>;
  /** How many records wait for the audit channel. */
  readonly queued: number;
}

/** Options of {@link createAuditLog}. */
export interface AuditLogOptions {
  /** A file to append JSON lines to; the logger's output otherwise. */
  file: string | undefined;
  /** A channel id to post the records to. */
  channel: string | undefined;
  /** The Web API client that posts them (the bot's own token). */
  client: () => webApi.WebClient;
  /** The bot's logger. */
  logger: Logger;
  /** The clock. */
  now?: () => Date;
  /** The audit stream (`VAULTLINE_AUDIT_SINKS`): every record is queued for it too. */
  stream?: AuditStream | undefined;
}

/**
 * One record as a line of the audit channel: plain text (posted with `mrkdwn: false`), the Slack
 * id as text (a <@…> mention would notify the person).
 *
 * @param record The record.
 * @returns The line.
 */
export function describeRecord(record: AuditRecord): string {
  const who = `${record.slackUser} (vault user ${escapeText(record.login ?? 'none', 80)})`;
  const where = record.channel ? ` in ${record.channel}` : '';
  const item =
    record.itemId === undefined ? '' : ` item ${record.itemId} “${escapeText(record.label ?? '', 120)}”`;
  const query = record.query === undefined ? '' : ` query “${escapeText(record.query, 120)}”`;
  const results = record.results === undefined ? '' : `, ${record.results} shown`;
  const request = record.requestId === undefined ? '' : ` request ${record.requestId}`;
  const by = record.decidedBy === undefined ? '' : ` by ${record.decidedBy}`;
  const target = record.target === undefined ? '' : ` target ${escapeText(record.target, 40)}`;
  const readAs = record.readAs === undefined ? '' : ` read as vault user ${escapeText(record.readAs, 80)}`;
  const outcome = record.outcome ? ` (${escapeText(record.outcome, 80)})` : '';
  return `${record.event}: ${who}${target}${item}${query}${request}${by}${readAs}${results}${where}${outcome}`;
}

const MAX_ATTEMPTS = 8;

/**
 * Creates the audit log. A failure to write is logged as an error, never thrown at the person.
 *
 * @param options Where records go.
 * @returns The audit log.
 */
export function createAuditLog(options: AuditLogOptions): AuditLog {
  const now = options.now ?? (() => new Date());
  let fileQueue: Promise<void> = Promise.resolve();
  const lines: string[] = [];
  let sending: Promise<void> | undefined;
  const kick = (channel: string) => {
    if (sending !== undefined) return;
    sending = send(channel).finally(() => {
      sending = undefined;
      if (lines.length > 0) kick(channel);
    });
  };

  async function send(channel: string): Promise<void> {
    let attempts = 0;
    while (lines.length > 0) {
      // A short wait gathers the records of a burst into one post.
      await sleep(AUDIT_FLUSH_MS);
      const batch = lines.slice(0, AUDIT_BATCH_SIZE);
      try {
        // The client waits out Slack's 429 (Retry-After) itself before trying again.
        await options.client().chat.postMessage({
          channel,
          text: batch.join('\n'),
          mrkdwn: false,
          unfurl_links: false,
          unfurl_media: false,
        });
        lines.splice(0, batch.length);
        attempts = 0;
      } catch (error) {
        attempts += 1;
        options.logger.warn(
          { err: error instanceof Error ? error.message : String(error), attempts, queued: lines.length },
          'audit channel post failed',
        );
        if (attempts >= MAX_ATTEMPTS) {
          options.logger.error({ dropped: batch.length }, 'audit channel posts dropped after retries');
          lines.splice(0, batch.length);
          attempts = 0;
        } else {
          await sleep(Math.min(30_000, 500 * 2 ** attempts));
        }
      }
    }
  }

  return {
    async record(record) {
      const entry = { time: now().toISOString(), audit: true, ...record };
      options.stream?.send({ ...entry, app: 'slack-bot' });
      if (options.file) {
        const file = options.file;
        // One writer at a time keeps lines whole and in order.
        fileQueue = fileQueue.then(() => appendFile(file, `${JSON.stringify(entry)}\n`, { mode: 0o600 }));
        try {
          await fileQueue;
        } catch (error) {
          fileQueue = Promise.resolve();
          options.logger.error(
            { err: error instanceof Error ? error.message : String(error) },
            'audit write failed',
          );
        }
      } else {
        options.logger.info(entry, 'audit');
      }
      const channel = options.channel;
      if (channel) {
        lines.push(describeRecord(record));
        kick(channel);
      }
    },
    async flush(ms) {
      if (sending !== undefined) await Promise.race([sending, sleep(ms)]);
      await options.stream?.close(ms);
    },
    get queued() {
      return lines.length;
    },
  };
}
