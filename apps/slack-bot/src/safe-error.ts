import { isVaultError, maskPasswords, type Redactor, serverWordsOf } from '@vaultline/protocol';

/** The longest error text a log line carries. */
const MAX_ERROR_TEXT = 160;

/**
 * What a log line says about an error: for a vault error, its code, status and the server's own
 * words (the core's {@link serverWordsOf}: the `err` message, never the whole body, one line, cut
 * short, password values masked by the core's `maskPasswords`), with the bot's secrets masked too.
 *
 * @param error What was thrown.
 * @param redact The bot's redactor (API key, tokens).
 * @returns Fields for a log line.
 */
export function errorFields(
  error: unknown,
  redact: Redactor,
): { code: string; status: number | undefined; err: string } {
  const mask = (text: string) => maskPasswords(redact(text));
  const text = isVaultError(error)
    ? // serverWordsOf masks password values itself.
      (serverWordsOf(error, redact, MAX_ERROR_TEXT) ?? mask(error.message))
    : mask(error instanceof Error ? `${error.name}: ${error.message}` : String(error));
  const flat = text.replace(/\s+/g, ' ').trim();
  return {
    code: isVaultError(error) ? error.code : 'unexpected',
    status: isVaultError(error) ? error.status : undefined,
    err: flat.length > MAX_ERROR_TEXT ? `${flat.slice(0, MAX_ERROR_TEXT)}…` : flat,
  };
}
