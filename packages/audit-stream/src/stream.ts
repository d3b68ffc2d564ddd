/**
 * The audit stream: every event goes into one bounded queue per sink, and is sent from there on
 * its own, batched and retried with backoff. `send` only appends: a sink that is down, slow or
 * hanging never slows the caller; when a queue is full, the event is dropped for that sink and
 * counted (Vault's audit devices block instead; an app in front of a password manager should not
 * stop serving because its SIEM is down, and the audit table keeps every record).
 *
 * @module
 */

import { hostname } from 'node:os';
import { sinkName } from './sinks.ts';
import { createTransport, type TransportOptions } from './transports.ts';
import {
  type AuditEvent,
  type AuditStreamLogger,
  type AuditStreamStats,
  PermanentSinkError,
  type SinkSpec,
  type SinkStats,
  type Transport,
} from './types.ts';

/** Events waiting per sink, by default. */
export const DEFAULT_QUEUE_SIZE = 10_000;
/** The most events in one batch. */
export const DEFAULT_BATCH_SIZE = 500;
/** The longest one attempt may take, in ms. */
export const DEFAULT_TIMEOUT_MS = 10_000;
/** The first wait after a failure, doubled on each one after it up to {@link MAX_RETRY_MS}. */
export const FIRST_RETRY_MS = 250;
export const MAX_RETRY_MS = 30_000;
/** How often, at most, dropped events are logged per sink. */
const DROP_LOG_INTERVAL_MS = 10_000;

/** Options of {@link createAuditStream}. */
export interface AuditStreamOptions {
  readonly sinks: readonly SinkSpec[];
  /** RFC 5424 APP-NAME, e.g. `vaultline-server`. */
  readonly appName: string;
  readonly logger: AuditStreamLogger;
  /** Bearer token for HTTP sinks (`VAULTLINE_AUDIT_SINK_TOKEN`). */
  readonly token?: string | undefined;
  /** Extra CA certificates (PEM) for TLS syslog and HTTPS sinks. */
  readonly ca?: string | undefined;
  /** Events waiting per sink; more are dropped. Default {@link DEFAULT_QUEUE_SIZE}. */
  readonly queueSize?: number | undefined;
  readonly batchSize?: number | undefined;
  /** The longest one attempt may take, in ms. Default {@link DEFAULT_TIMEOUT_MS}. */
  readonly timeoutMs?: number | undefined;
  /** Where `stdout` writes; the process's stdout by default. */
  readonly stdout?: { write(chunk: string): unknown } | undefined;
}

/** The stream. */
export interface AuditStream {
  /** Queues an event for every sink; never waits, never throws. */
  send(event: AuditEvent): void;
  /** The counters: queued and dropped, per sink and in all. */
  stats(): AuditStreamStats;
  /**
   * Sends what waits, for at most `waitMs` (the attempt timeout by default), then stops and closes
   * the connections.
   */
  close(waitMs?: number): Promise<void>;
}

class SinkQueue {
  readonly name: string;
  private readonly events: AuditEvent[] = [];
  private delivered = 0;
  private dropped = 0;
  private failures = 0;
  private running: Promise<void> | undefined;
  private wake: (() => void) | undefined;
  private closing = false;
  private lastDropLog = Number.NEGATIVE_INFINITY;
  private droppedSinceLog = 0;

  private readonly transport: Transport;
  private readonly options: { queueSize: number; batchSize: number; logger: AuditStreamLogger };

  constructor(
    spec: SinkSpec,
    transport: Transport,
    options: { queueSize: number; batchSize: number; logger: AuditStreamLogger },
  ) {
    this.name = sinkName(spec);
    this.transport = transport;
    this.options = options;
  }

  push(event: AuditEvent): void {
    if (this.events.length >= this.options.queueSize) {
      this.drop(1, 'the queue is full');
      return;
    }
    this.events.push(event);
    this.running ??= this.run();
  }

  stats(): SinkStats {
    return { sink: this.name, queued: this.events.length, delivered: this.delivered, dropped: this.dropped };
  }

  private drop(count: number, why: string): void {
    this.dropped += count;
    this.droppedSinceLog += count;
    const now = Date.now();
    if (now - this.lastDropLog < DROP_LOG_INTERVAL_MS) return;
    this.options.logger.warn(
      { sink: this.name, dropped: this.droppedSinceLog, droppedTotal: this.dropped },
      `audit events dropped: ${why}`,
    );
    this.lastDropLog = now;
    this.droppedSinceLog = 0;
  }

  private async run(): Promise<void> {
    // Started from push(): the caller's turn ends before any byte is formatted or sent.
    await Promise.resolve();
    try {
      while (this.events.length > 0) {
        const batch = this.events.slice(0, this.options.batchSize);
        try {
          await this.transport.deliver(batch);
          this.events.splice(0, batch.length);
          this.delivered += batch.length;
          if (this.failures > 0) this.options.logger.info({ sink: this.name }, 'audit sink reachable again');
          this.failures = 0;
        } catch (error) {
          if (error instanceof PermanentSinkError) {
            this.events.splice(0, batch.length);
            this.drop(batch.length, (error as Error).message);
            continue;
          }
          if (this.failures === 0) {
            this.options.logger.warn(
              { sink: this.name, err: { name: (error as Error).name, message: (error as Error).message } },
              'audit sink not reachable; retrying',
            );
          }
          this.failures++;
          if (this.closing) return;
          await this.pause(Math.min(MAX_RETRY_MS, FIRST_RETRY_MS * 2 ** (this.failures - 1)));
          if (this.closing) return;
        }
      }
    } finally {
      this.running = undefined;
    }
  }

  private pause(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, ms);
      timer.unref();
      this.wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }

  async close(timeoutMs: number): Promise<void> {
    const running = this.running;
    if (running !== undefined && timeoutMs > 0) {
      let timer: ReturnType<typeof setTimeout> | undefined;
      await Promise.race([running, new Promise<void>((resolve) => (timer = setTimeout(resolve, timeoutMs)))]);
      clearTimeout(timer);
    }
    this.closing = true;
    this.wake?.();
    this.transport.close();
  }
}

/**
 * Creates the stream.
 *
 * @param options The sinks and how to reach them.
 * @returns The stream; with no sink, one that does nothing.
 */
export function createAuditStream(options: AuditStreamOptions): AuditStream {
  const transportOptions: TransportOptions = {
    origin: { appName: options.appName, hostname: hostname(), procId: process.pid },
    token: options.token,
    ca: options.ca,
    timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    stdout: options.stdout ?? process.stdout,
  };
  const queues = options.sinks.map(
    (spec) =>
      new SinkQueue(spec, createTransport(spec, transportOptions), {
        queueSize: options.queueSize ?? DEFAULT_QUEUE_SIZE,
        batchSize: options.batchSize ?? DEFAULT_BATCH_SIZE,
        logger: options.logger,
      }),
  );
  return {
    send(event) {
      for (const queue of queues) queue.push(event);
    },
    stats() {
      const sinks = queues.map((queue) => queue.stats());
      return {
        queued: sinks.reduce((sum, sink) => sum + sink.queued, 0),
        dropped: sinks.reduce((sum, sink) => sum + sink.dropped, 0),
        sinks,
      };
    },
    async close(waitMs = transportOptions.timeoutMs) {
      await Promise.all(queues.map((queue) => queue.close(waitMs)));
    },
  };
}
