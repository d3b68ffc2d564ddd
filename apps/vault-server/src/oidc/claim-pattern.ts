/**
 * What a trust policy asks of a token's claims: `KEY=VALUE`, an exact value, or a prefix of at least
 * two parts ending in `*` after a `/` or a `:` (`ref=refs/heads/*`, `sub=repo:acme/api:*`). Nothing
 * else is a glob: a leading or inner `*`, or one after a single part (`sub=repo:*`, `*-prod`), could
 * match a value an attacker chooses (any repository), so it is refused rather than read. A whole
 * organisation is named by its own claim, exactly (`repository_owner=acme`, `namespace_path=acme`).
 *
 * @module
 */

/** The claims a policy sets with its own options (`--issuer`, `--audience`) or the server checks itself. */
const RESERVED = new Set(['iss', 'aud', 'exp', 'nbf', 'iat', 'jti']);

/** A claim's name as a policy may name it: a JSON key of the token's top level. */
const CLAIM_NAME = /^[A-Za-z0-9_][A-Za-z0-9_.:/-]{0,99}$/;

/**
 * Reads one `--claim KEY=VALUE`.
 *
 * @param text The option's value.
 * @returns The claim's name and its pattern.
 * @throws {Error} For a malformed claim, a reserved name, or an unsafe glob.
 */
export function parseClaim(text: string): [name: string, pattern: string] {
  const at = text.indexOf('=');
  const name = at === -1 ? '' : text.slice(0, at).trim();
  const pattern = at === -1 ? '' : text.slice(at + 1);
  if (!CLAIM_NAME.test(name) || pattern === '')
    throw new Error(
      `Expected --claim as KEY=VALUE (e.g. repository=acme/api), received ${JSON.stringify(text.slice(0, 60))}.`,
    );
  if (RESERVED.has(name))
    throw new Error(
      `The claim ${name} is not set with --claim: the issuer and audience have options of their own, and exp, nbf, iat and jti are checked by the server.`,
    );
  checkPattern(name, pattern);
  return [name, pattern];
}

/**
 * Checks a claim's pattern: exact, or a prefix and a final `*` after a `/` or a `:`.
 *
 * @param name The claim's name, for the message.
 * @param pattern The pattern.
 * @throws {Error} For an unsafe glob.
 */
export function checkPattern(name: string, pattern: string): void {
  const star = pattern.indexOf('*');
  if (star === -1) return;
  const prefix = pattern.slice(0, -1);
  const parts = prefix.slice(0, -1).split(/[/:]/);
  if (
    star !== pattern.length - 1 ||
    !(prefix.endsWith('/') || prefix.endsWith(':')) ||
    parts.length < 2 ||
    parts.some((part) => part === '')
  )
    throw new Error(
      `The claim ${name} has an unsafe pattern: a * is allowed only at the end, after two parts or more and a "/" or ":" (refs/heads/*, repo:acme/api:*); name an organisation by its own claim (repository_owner=acme).`,
    );
}

/**
 * Whether a claim's value matches a pattern. Only strings, numbers and booleans match (GitHub's
 * `run_id` is a string, GitLab's `pipeline_id` too); arrays and objects never do.
 *
 * @param pattern The pattern ({@link checkPattern}).
 * @param value The claim's value.
 * @returns Whether it matches.
 */
export function claimMatches(pattern: string, value: unknown): boolean {
  if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean') return false;
  const text = String(value);
  if (pattern.endsWith('*')) {
    const prefix = pattern.slice(0, -1);
    return text.length > prefix.length && text.startsWith(prefix);
  }
  return text === pattern;
}
