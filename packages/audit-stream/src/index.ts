/**
 * The audit stream of Vaultline's apps: audit events sent to stdout, syslog (RFC 5424 over TCP,
 * UDP or TLS) and HTTP collectors, beside the app's own audit records, without slowing a request.
 *
 * @module
 */
export { AuditSinkConfigError, parseSinks, sinkName } from './sinks.ts';
export {
  type AuditStream,
  type AuditStreamOptions,
  createAuditStream,
  DEFAULT_BATCH_SIZE,
  DEFAULT_QUEUE_SIZE,
  DEFAULT_TIMEOUT_MS,
} from './stream.ts';
export { formatSyslog, octetCounted, SD_ID, type SyslogOrigin } from './syslog.ts';
export type { AuditEvent, AuditStreamLogger, AuditStreamStats, SinkSpec, SinkStats } from './types.ts';
