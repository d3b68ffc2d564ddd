import { appendFile } from 'node:fs/promises';
import type { webApi } from '@slack/bolt';
import type { Logger } from 'pino';
import type { AUDIT_EVENTS } from './constants.ts';
import { escapeMrkdwn } from './escape.ts';

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
  /** Why it was refused, when it was. */
  outcome?: string | undefined;
}

/** Writes audit records. */
export interface AuditLog {
  /**
   * Records an event: one JSON line, then (optionally) a post to the audit channel.
   *
   * @param record The event.
   * @param client A Web API client, for the audit channel.
   */
  record(record: AuditRecord, client: webApi.WebClient): Promise<void>;
}

/** Options of {@link createAuditLog}. */
export interface AuditLogOptions {
  /** A file to append JSON lines to; the logger's output otherwise. */
  file: string | undefined;
  /** A channel id to post each record to. */
  channel: string | undefined;
  /** The bot's logger. */
  logger: Logger;
  /** The clock. */
  now?: () => Date;
}

function describe(record: AuditRecord): string {
  // The Slack id as plain text: a <@…> mention would notify the person in the audit channel.
  const who = `${record.slackUser} (vault user \`${escapeMrkdwn(record.login ?? 'none', 80)}\`)`;
  const where = record.channel ? ` in <#${record.channel}>` : '';
  const item =
    record.itemId === undefined ? '' : ` item ${record.itemId} “${escapeMrkdwn(record.label ?? '', 120)}”`;
  const query = record.query === undefined ? '' : ` query “${escapeMrkdwn(record.query, 120)}”`;
  const results = record.results === undefined ? '' : `, ${record.results} shown`;
  const outcome = record.outcome ? ` (${escapeMrkdwn(record.outcome, 80)})` : '';
  return `${record.event}: ${who}${item}${query}${results}${where}${outcome}`;
}

/**
 * Creates the audit log. A failure to write is logged as an error, never thrown at the person.
 *
 * @param options Where records go.
 * @returns The audit log.
 */
export function createAuditLog(options: AuditLogOptions): AuditLog {
  const now = options.now ?? (() => new Date());
  let queue: Promise<void> = Promise.resolve();
  return {
    async record(record, client) {
      const entry = { time: now().toISOString(), audit: true, ...record };
      if (options.file) {
        const file = options.file;
        // One writer at a time keeps lines whole and in order.
        queue = queue.then(() => appendFile(file, `${JSON.stringify(entry)}\n`, { mode: 0o600 }));
        try {
          await queue;
        } catch (error) {
          queue = Promise.resolve();
          options.logger.error(
            { err: error instanceof Error ? error.message : String(error) },
            'audit write failed',
          );
        }
      } else {
        options.logger.info(entry, 'audit');
      }
      if (options.channel) {
        try {
          await client.chat.postMessage({
            channel: options.channel,
            text: describe(record),
            unfurl_links: false,
            unfurl_media: false,
          });
        } catch (error) {
          options.logger.warn(
            { err: error instanceof Error ? error.message : String(error) },
            'audit channel post failed',
          );
        }
      }
    },
  };
}
