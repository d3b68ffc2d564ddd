import type { Logger as BoltLogger, LogLevel } from '@slack/bolt';
import { createRedactor, type Redactor } from '@vaultline/protocol';
import { type DestinationStream, type Logger, pino } from 'pino';
import { createSecretRegistry, type SecretRegistry } from './secret-registry.ts';

/** A pino logger whose every line has had the configured secrets removed. */
export interface BotLogger {
  /** The pino logger. */
  readonly log: Logger;
  /** Removes the secrets from a text: the configured ones and those {@link BotLogger.secrets} holds. */
  readonly redact: Redactor;
  /** The secrets the bot holds for a while (linked credentials, session tokens): redacted too. */
  readonly secrets: SecretRegistry;
  /** The same logger in the shape Bolt expects. */
  readonly bolt: BoltLogger;
}

/**
 * What Bolt and the Socket Mode client write, without the payloads some of their debug lines quote
 * (`Received a message on the WebSocket: {…}`, `ack() call begins (body: {…})`): a payload can
 * carry what a person typed (a password in a modal, a command with a password typed by mistake).
 * Everything from the first `{` or `[` on is withheld.
 *
 * @param text A line of Bolt's.
 * @returns The line, without a payload.
 */
export function withoutPayload(text: string): string {
  const start = text.search(/[{[]/);
  return start < 0 ? text : `${text.slice(0, start)}[payload withheld]`;
}

/**
 * Creates the logger: JSON lines, each passed through a redactor of the bot's secrets before it is
 * written, so a secret cannot reach a log even through a library's message. The secrets are the
 * configured ones, those the bot holds for a while (linked accounts) and anything shaped like a
 * session token; Bolt's lines never carry a payload ({@link withoutPayload}).
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
  const configured = createRedactor(secrets);
  const held = createSecretRegistry();
  const redact: Redactor = (text) => held.redact(configured(text));
  const stream: DestinationStream = { write: (line: string) => destination.write(redact(line)) };
  const log = pino({ level, base: { name: 'vaultline-slack-bot' } }, stream);
  const boltLog = log.child({ component: 'bolt' });
  let name = 'bolt';
  const format = (msg: unknown[]) =>
    withoutPayload(
      msg
        .map((part) =>
          part instanceof Error
            ? `${part.name}: ${part.message}`
            : typeof part === 'string'
              ? part
              : JSON.stringify(part),
        )
        .join(' '),
    );
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
  return { log, redact, secrets: held, bolt };
}
