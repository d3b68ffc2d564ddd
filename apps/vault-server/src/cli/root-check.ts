/**
 * `vaultline-server start` refuses to run as root (uid 0): a server holding every secret of a team
 * should own nothing but its data directory. `VAULTLINE_ALLOW_ROOT=1` lets it (a machine where
 * everything runs as root, such as a throwaway CI container). `quickstart`, the local demo, does
 * not check.
 *
 * @module
 */

/** The variable that lets the server run as root. */
export const ALLOW_ROOT_VARIABLE = 'VAULTLINE_ALLOW_ROOT';

/**
 * Why the server must not start as this user, or `undefined` when it may.
 *
 * @param uid The process's user id (`process.getuid()`; `undefined` on Windows).
 * @param env The environment.
 * @returns The refusal's message, or `undefined`.
 */
export function rootRefusal(
  uid: number | undefined,
  env: Readonly<Record<string, string | undefined>>,
): string | undefined {
  if (uid !== 0) return undefined;
  const allowed = (env[ALLOW_ROOT_VARIABLE] ?? '').trim().toLowerCase();
  if (allowed === '1' || allowed === 'true') return undefined;
  return `Refusing to run as root (uid 0): run the server as an unprivileged user that owns only its data directory (in a container: USER 65532, the images' default), or set ${ALLOW_ROOT_VARIABLE}=1 to allow it.`;
}
