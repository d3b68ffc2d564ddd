/** One audit event: flat or nested fields, sent as they are. Never a value, a key or a token. */
export type AuditEvent = Readonly<Record<string, unknown>>;

/** Where events go, as `VAULTLINE_AUDIT_SINKS` names it. */
export type SinkSpec =
  | { readonly kind: 'stdout' }
  | {
      readonly kind: 'syslog';
      readonly transport: 'tcp' | 'udp' | 'tls';
      readonly host: string;
      readonly port: number;
    }
  | { readonly kind: 'http'; readonly url: URL };

/** What the stream logs through (a pino logger fits). */
export interface AuditStreamLogger {
  warn(details: object, message: string): void;
  info(details: object, message: string): void;
}

/** One sink's counters. */
export interface SinkStats {
  /** The sink, without credentials: `syslog+tcp://siem:6514`. */
  readonly sink: string;
  /** Events waiting, the batch being sent included. */
  readonly queued: number;
  /** Events sent. */
  readonly delivered: number;
  /** Events given up: the queue was full, or the sink refused them for good. */
  readonly dropped: number;
}

/** Every sink's counters, and their sums. */
export interface AuditStreamStats {
  readonly queued: number;
  readonly dropped: number;
  readonly sinks: readonly SinkStats[];
}

/** Sends a batch of events to one sink; throws when they did not arrive. */
export interface Transport {
  deliver(events: readonly AuditEvent[]): Promise<void>;
  close(): void;
}

/** A failure after which sending the same batch again cannot help (an HTTP 400, say). */
export class PermanentSinkError extends Error {
  override readonly name = 'PermanentSinkError';
}
