/**
 * What a Vaultline server said of an API key (`info/version` asked with it: the login the key acts
 * as, its rules), kept in the cache directory so that the next process passes it back
 * (`legacy.keyAnswer`) and asks no more. It decides whether a read needs the login's rights (the
 * server enforces those of the key's own user), so it is sealed with the key: only a holder of
 * the key can write an answer that is taken, and another key opens none.
 *
 * @module
 */

import { join } from 'node:path';
import type { KeyAnswer } from '@vaultline/protocol';
import {
  privateDir,
  readSealedFile,
  sealedFileName,
  sealingContext,
  writeSealedFile,
} from '@vaultline/sealer/node';
import * as v from 'valibot';

/** Names the format, and separates its keys from any other use of the same key. */
const CONTEXT_LABEL = 'vaultline key answer v1';

const KeyAnswerSchema = v.object({
  rules: v.picklist(['vaultline', 'teampass']),
  login: v.optional(v.string()),
});

function fileOf(dir: string, url: string) {
  const context = sealingContext(CONTEXT_LABEL, url, '');
  return { path: join(dir, sealedFileName('key', context)), context };
}

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
  const { path, context } = fileOf(dir, url);
  try {
    if (!(await privateDir(dir))) return undefined;
    const file = await readSealedFile(path, {}, () => ({
      material: apiKey,
      context,
      aad: Buffer.from(context),
    }));
    if (file === undefined) return undefined;
    const answer = v.parse(KeyAnswerSchema, JSON.parse(file.text));
    return { rules: answer.rules, login: answer.login };
  } catch {
    return undefined;
  }
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
  const { path, context } = fileOf(dir, url);
  try {
    if (!(await privateDir(dir))) return;
    const text = JSON.stringify({ rules: answer.rules, login: answer.login });
    await writeSealedFile(path, text, { material: apiKey, context, aad: Buffer.from(context) });
  } catch {
    // Best effort.
  }
}
