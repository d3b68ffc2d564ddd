import pino, { type Logger } from 'pino';

/** Where log lines go: stdout, or a function (tests capture lines). */
export type LogDestination = { write(line: string): void } | undefined;

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
    destination ?? pino.destination(1),
  );
}
