/**
 * What a Vaultline server said of an API key (`info/version` asked with it: the login the key acts
 * as, its rules), kept in the cache directory so that the next process passes it back
 * (`legacy.keyAnswer`) and asks no more. It decides whether a read needs the login's rights (the
 * server enforces those of the key's own user), so it is sealed with the key: only a holder of
 * the key can write an answer that is taken, and another key opens none.
 *
 * @module
 */

import type { KeyAnswer } from '@vaultline/protocol';
import { jsonCodec, privateDir, sealedCache } from '@vaultline/sealer/node';
import * as v from 'valibot';

/** A file per vault (`key-<hash>.json`), sealed with the key: the rules, and the key's login. */
const keyAnswers = sealedCache({
  // Names the format, and separates its keys from any other use of the same key.
  label: 'vaultline key answer v1',
  prefix: 'key',
  what: 'key answer',
  codec: jsonCodec(v.object({ rules: v.picklist(['vaultline', 'teampass']), login: v.optional(v.string()) })),
});

/**
 * What the server said of this key before, if it was kept for it.
 *
 * @param dir The cache directory.
 * @param url The vault's URL.
 * @param apiKey The key.
 * @returns The answer, or `undefined` (none, another key's, unreadable).
 */
export async function rememberedKeyAnswer(
  dir: string,
  url: string,
  apiKey: string,
): Promise<KeyAnswer | undefined> {
  try {
    // Only from a directory no one else may write.
    if (!(await privateDir(dir))) return undefined;
  } catch {
    return undefined;
  }
  const answer = await keyAnswers({ dir, url, scope: '' }).get(apiKey);
  return answer === undefined ? undefined : { rules: answer.rules, login: answer.login };
}

/**
 * Keeps what the server said of this key (best effort: a cache that cannot be written only costs
 * the next process the question).
 *
 * @param dir The cache directory.
 * @param url The vault's URL.
 * @param apiKey The key, which seals it.
 * @param answer The answer.
 */
export async function rememberKeyAnswer(
  dir: string,
  url: string,
  apiKey: string,
  answer: KeyAnswer,
): Promise<void> {
  await keyAnswers({ dir, url, scope: '' }).set(apiKey, { rules: answer.rules, login: answer.login });
}
