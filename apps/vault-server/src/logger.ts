import pino, { type Logger } from 'pino';
import { LOG_BUFFER_BYTES, LOG_FLUSH_MS } from './constants.ts';

/** Where log lines go: stdout, or a function (tests capture lines). */
export type LogDestination = { write(line: string): void } | undefined;

/**
 * A file descriptor or path as a log destination: asynchronous and buffered, flushed every
 * {@link LOG_FLUSH_MS} and when the process exits, so a request never waits for its log line.
 */
export function createLogDestination(dest: number | string): NonNullable<LogDestination> {
  return pino.destination({ dest, sync: false, minLength: LOG_BUFFER_BYTES, periodicFlush: LOG_FLUSH_MS });
}

/**
 * The server's logger: JSON lines. Request logs carry the operation name, never the URL: the key
 * and write values travel in it. `redact` is a second line of defence for fields that must never
 * appear.
 */
export function createLogger(level: string, destination: LogDestination): Logger {
  return pino(
    {
      level,
      base: { service: 'vault-server' },
      redact: {
        paths: ['apikey', 'apiKey', 'key', 'password', 'pw', 'url', 'req.url', 'headers.authorization'],
        censor: '[REDACTED]',
      },
    },
    destination ?? createLogDestination(1),
  );
}
