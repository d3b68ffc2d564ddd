/**
 * What the one upstream of a server in upstream mode can do, told once at start: every account is
 * verified against the server's one upstream URL, so the upstream's dialect is the server's to
 * know. One keyless request (`detectDialect`) tells it; when the upstream does not answer then,
 * the dialect its registered accounts were verified with does.
 *
 * @module
 */

import { detectDialect, type ServerCapabilities } from '@vaultline/protocol';
import type { ServerFeature } from '@vaultline/protocol/wire';
import type { Queryable } from '@vaultline/store';
import type { Logger } from 'pino';
import type { SecretBox } from '../crypto/secret-box.ts';
import { openAccount } from './upstream-accounts.ts';
import { upstreamClient } from './upstream-sessions.ts';

/** How long the keyless request at start may take, in ms. */
const DETECT_TIMEOUT_MS = 5_000;

/**
 * The features of `info/version` the upstream adds: `otp` where its client reads one-time codes
 * (TeamPass 3, a Vaultline server that keeps them); none otherwise.
 *
 * @param url The upstream's base URL.
 * @param db The server's database (the registered accounts).
 * @param box What opens an account's sealed credentials.
 * @param logger Where what told it is logged (no credential is involved).
 * @returns The features.
 */
export async function upstreamFeatures(
  url: string,
  db: Queryable,
  box: SecretBox,
  logger: Pick<Logger, 'info' | 'warn'>,
  options: { timeoutMs?: number | undefined } = {},
): Promise<ServerFeature[]> {
  const timeoutMs = options.timeoutMs ?? DETECT_TIMEOUT_MS;
  let capabilities: ServerCapabilities | undefined;
  const found = await detectDialect({ baseUrl: url, timeoutMs });
  if (found.detected) {
    capabilities = found.capabilities;
    logger.info({ dialect: found.dialect, evidence: found.evidence }, 'upstream dialect detected');
  } else {
    const [row] = await db.query<{ id: number; dialect: 'legacy' | 'teampass3' }>(
      'SELECT id, dialect FROM upstream_accounts ORDER BY id LIMIT 1',
    );
    if (row) {
      // The client of that account, made with the dialect it was verified with: TeamPass 3's
      // client knows its capabilities without a request; the legacy one asks, and may fail.
      const account = await openAccount(db, box, Number(row.id));
      capabilities = await upstreamClient(url, account, { timeoutMs })
        .capabilities()
        .catch(() => undefined);
    }
    logger.warn(
      { evidence: found.evidence, dialect: row?.dialect },
      'upstream dialect not detected at start; taken from the registered accounts',
    );
  }
  return capabilities?.otp ? ['otp'] : [];
}
