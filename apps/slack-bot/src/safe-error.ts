import { isVaultError, REDACTED, type Redactor } from '@vaultline/protocol';

/** The longest error text a log line carries. */
const MAX_ERROR_TEXT = 160;

/**
 * What a log line says about an error: for a vault error, its code, status and the server's own
 * message (its `err`), never the whole body; every text cut short, with the bot's secrets and any
 * `"pw": "…"` value masked (as the core masks bodies of the wrong shape), since a vault's error
 * message may quote the record it refused.
 *
 * @param error What was thrown.
 * @param redact The bot's redactor (API key, tokens).
 * @returns Fields for a log line.
 */
export function errorFields(
  error: unknown,
  redact: Redactor,
): { code: string; status: number | undefined; err: string } {
  const text = isVaultError(error)
    ? (error.serverMessage ?? error.message)
    : error instanceof Error
      ? `${error.name}: ${error.message}`
      : String(error);
  const masked = redact(text)
    .replace(/(\\?"(?:pw|password)\\?"\s*:\s*\\?")(?:[^"\\]|\\[^"])*(\\?")?/gi, `$1${REDACTED}"`)
    .replace(/\b(pw|password)=\S+/gi, `$1=${REDACTED}`)
    .replace(/\s+/g, ' ')
    .trim();
  return {
    code: isVaultError(error) ? error.code : 'unexpected',
    status: isVaultError(error) ? error.status : undefined,
    err: masked.length > MAX_ERROR_TEXT ? `${masked.slice(0, MAX_ERROR_TEXT)}…` : masked,
  };
}
