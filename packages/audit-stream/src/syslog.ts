/**
 * Audit events as RFC 5424 syslog messages: facility 13 (log audit), the event's fields as the
 * structured data of one element, and the event as JSON in the message, for collectors that do
 * not read structured data. TCP and TLS frame them by octet counting (RFC 6587 §3.4.1, RFC 5425).
 *
 * @see https://www.rfc-editor.org/rfc/rfc5424
 * @module
 */

import type { AuditEvent } from './types.ts';

/**
 * The SD-ID of the element: RFC 5424 §7.2.2 wants `name@<private enterprise number>`; 32473 is the
 * number RFC 5612 reserves for documentation and examples, until the project has its own.
 */
export const SD_ID = 'vaultline@32473';

/** RFC 5424 §6.2.1: "log audit". */
const FACILITY_LOG_AUDIT = 13;
const SEVERITY_WARNING = 4;
const SEVERITY_INFO = 6;

/** Where the messages say they come from. */
export interface SyslogOrigin {
  /** APP-NAME, e.g. `vaultline-server`. */
  readonly appName: string;
  readonly hostname: string;
  readonly procId: number;
}

/** PRINTUSASCII only (RFC 5424 §6), at most `max` characters, `-` when nothing is left. */
function header(text: string, max: number): string {
  const printable = text.replace(/[^\x21-\x7e]/g, '_').slice(0, max);
  return printable === '' ? '-' : printable;
}

/** SD-NAME: PRINTUSASCII but `=`, space, `]` and `"`, at most 32 (RFC 5424 §6.3.3). */
function paramName(name: string): string {
  return name.replace(/[^\x21-\x7e]|[=\]"]/g, '_').slice(0, 32) || '_';
}

/** PARAM-VALUE: `"`, `\` and `]` escaped (RFC 5424 §6.3.3). */
function paramValue(value: string): string {
  return value.replace(/["\\\]]/g, '\\$&');
}

/** The event's fields as name/value pairs; nested objects as dotted names (`identity.sub`). */
function flatten(event: Readonly<Record<string, unknown>>, prefix = ''): [string, string][] {
  const pairs: [string, string][] = [];
  for (const [key, value] of Object.entries(event)) {
    if (value === undefined || value === null) continue;
    if (typeof value === 'object' && !Array.isArray(value) && !(value instanceof Date)) {
      pairs.push(...flatten(value as Record<string, unknown>, `${prefix}${key}.`));
    } else {
      const text =
        value instanceof Date ? value.toISOString() : Array.isArray(value) ? value.join(',') : String(value);
      pairs.push([paramName(`${prefix}${key}`), text]);
    }
  }
  return pairs;
}

/**
 * An event as one RFC 5424 message (without framing).
 *
 * @param event The event: its `time` (ISO 8601) is the TIMESTAMP, its `action` (or `event`) the
 *   MSGID, and an `outcome` other than `ok` makes it a warning.
 * @param origin APP-NAME, HOSTNAME and PROCID.
 * @returns The message.
 */
export function formatSyslog(event: AuditEvent, origin: SyslogOrigin): string {
  const outcome = event.outcome;
  const severity = outcome === undefined || outcome === 'ok' ? SEVERITY_INFO : SEVERITY_WARNING;
  const time =
    typeof event.time === 'string' && !Number.isNaN(Date.parse(event.time))
      ? event.time
      : new Date().toISOString();
  const msgId = event.action ?? event.event ?? event.operation;
  const data = flatten(event)
    .map(([name, value]) => ` ${name}="${paramValue(value)}"`)
    .join('');
  return [
    `<${FACILITY_LOG_AUDIT * 8 + severity}>1`,
    header(new Date(time).toISOString(), 64),
    header(origin.hostname, 255),
    header(origin.appName, 48),
    header(String(origin.procId), 128),
    header(typeof msgId === 'string' ? msgId : '', 32),
    `[${SD_ID}${data}]`,
    JSON.stringify(event),
  ].join(' ');
}

/**
 * Octet-counting framing (RFC 6587 §3.4.1): the message's length in bytes, a space, the message.
 *
 * @param message The message.
 * @returns The frame.
 */
export function octetCounted(message: string): Buffer {
  const body = Buffer.from(message, 'utf8');
  return Buffer.concat([Buffer.from(`${body.length} `, 'ascii'), body]);
}
