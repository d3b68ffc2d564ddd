/**
 * What `fetch` threw, in words: shared by both dialects' callers. Internal: exported by no entry.
 *
 * @module
 */

/**
 * The deepest `cause` of an error chain (at most five deep): where fetch keeps `ECONNREFUSED` and
 * its kin under its own `TypeError: fetch failed`.
 *
 * @param error What was thrown.
 * @returns The innermost cause, or the error itself.
 */
export function innermost(error: unknown): unknown {
  let current = error;
  for (let depth = 0; depth < 5; depth++) {
    const next = current instanceof Error ? current.cause : undefined;
    if (next === undefined || next === null) break;
    current = next;
  }
  return current;
}

/**
 * The words that say what went wrong: a Node error's code (`ECONNREFUSED`), else the message. A
 * `DOMException` (a timeout, an abort) carries a numeric legacy code, which says nothing: its
 * message does.
 *
 * @param root What was thrown (usually {@link innermost}'s answer).
 * @returns One short text, not yet redacted.
 */
export function thrownWords(root: unknown): string {
  if (!(root instanceof Error)) return String(root);
  const code = (root as { code?: unknown }).code;
  return typeof code === 'string' && code !== '' ? code : root.message;
}
