import type { Logger as BoltLogger, LogLevel } from '@slack/bolt';
import { createRedactor, type Redactor } from '@vaultline/protocol';
import { type DestinationStream, type Logger, pino } from 'pino';

/** A pino logger whose every line has had the configured secrets removed. */
export interface BotLogger {
  /** The pino logger. */
  readonly log: Logger;
  /** Removes the secrets from a text. */
  readonly redact: Redactor;
  /** The same logger in the shape Bolt expects. */
  readonly bolt: BoltLogger;
}

/**
 * Creates the logger: JSON lines, each passed through a redactor of the bot's secrets before it is
 * written, so a secret cannot reach a log even through a library's message.
 *
 * @param level The lowest level written.
 * @param secrets The API key, tokens and signing secret.
 * @param destination Where lines go; stdout by default.
 * @returns The logger.
 */
export function createLogger(
  level: string,
  secrets: readonly string[],
  destination: DestinationStream = pino.destination(1),
): BotLogger {
  const redact = createRedactor(secrets);
  const stream: DestinationStream = { write: (line: string) => destination.write(redact(line)) };
  const log = pino({ level, base: { name: 'vaultline-slack-bot' } }, stream);
  const boltLog = log.child({ component: 'bolt' });
  let name = 'bolt';
  const format = (msg: unknown[]) =>
    msg
      .map((part) =>
        part instanceof Error
          ? `${part.name}: ${part.message}`
          : typeof part === 'string'
            ? part
            : JSON.stringify(part),
      )
      .join(' ');
  const bolt: BoltLogger = {
    debug: (...msg) => boltLog.debug({ logger: name }, format(msg)),
    info: (...msg) => boltLog.info({ logger: name }, format(msg)),
    warn: (...msg) => boltLog.warn({ logger: name }, format(msg)),
    error: (...msg) => boltLog.error({ logger: name }, format(msg)),
    setLevel: (next: LogLevel) => {
      boltLog.level = next;
    },
    getLevel: () => boltLog.level as LogLevel,
    setName: (next: string) => {
      name = next;
    },
  };
  return { log, redact, bolt };
}
