import { fixedServerWordsOf, isVaultError, maskPasswords, type Redactor } from '@vaultline/protocol';

/** The longest error text a log line carries. */
const MAX_ERROR_TEXT = 160;

/** Vault errors of the transport: the core's own sentence, with no server text in it. */
const TRANSPORT_CODES = new Set(['network', 'timeout', 'aborted']);

/** What a log line says about an error. */
export interface ErrorFields {
  /** The vault error's code, or `unexpected`. */
  code: string;
  /** The HTTP status, when the vault answered. */
  status: number | undefined;
  /** The vault operation that failed (`readUserFolders`…). */
  endpoint?: string | undefined;
  /** A text that cannot carry a value, cut short; absent when there is none. */
  err?: string | undefined;
  /** Set when the vault wrote something that is not logged (it could carry a value). */
  withheld?: true | undefined;
}

/**
 * What a log line says about an error, never by masking server text alone:
 *
 * - a vault error: its code, status and operation, and the server's words only when they are a
 *   fixed wording servers are known to send (the core's {@link fixedServerWordsOf}: no value can
 *   hide in them); any other text the vault wrote is withheld (`withheld: true`), whatever its
 *   shape. A transport failure (network, timeout, cancelled) keeps the core's own sentence.
 * - anything else (a bug, a Slack Web API error): its name and message, the bot's or the
 *   runtime's own words; a `SyntaxError` keeps its name only (its message quotes what it failed
 *   to parse).
 *
 * Every text kept is passed through the bot's redactor and the core's password masking, on one
 * line, at most 160 characters.
 *
 * @param error What was thrown.
 * @param redact The bot's redactor (API key, tokens).
 * @returns Fields for a log line.
 */
export function errorFields(error: unknown, redact: Redactor): ErrorFields {
  if (isVaultError(error)) {
    const said = error.serverMessage !== undefined || error.excerpt !== undefined;
    const text = said
      ? fixedServerWordsOf(error)
      : TRANSPORT_CODES.has(error.code)
        ? error.message
        : undefined;
    return {
      code: error.code,
      status: error.status,
      endpoint: error.endpoint,
      err: text === undefined ? undefined : bounded(text, redact),
      withheld: said && text === undefined ? true : undefined,
    };
  }
  const name = error instanceof Error ? error.name : typeof error;
  const message =
    error instanceof Error ? (error.name === 'SyntaxError' ? undefined : error.message) : undefined;
  return {
    code: 'unexpected',
    status: undefined,
    err: bounded(message === undefined ? name : `${name}: ${message}`, redact),
  };
}

function bounded(text: string, redact: Redactor): string {
  const flat = maskPasswords(redact(text)).replace(/\s+/g, ' ').trim();
  return flat.length > MAX_ERROR_TEXT ? `${flat.slice(0, MAX_ERROR_TEXT)}…` : flat;
}
