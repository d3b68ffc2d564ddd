import type { WireClient } from '@vaultline/protocol/wire';
import { type PostgresCluster, startPostgresCluster } from '@vaultline/store/testing';
import { afterAll, beforeAll } from 'vitest';
import type { TestVault, TestVaultOptions } from '../../src/testing.ts';
import { clientOf, expectNoSecrets, type StoreKind, setByBeforeAll, startVaultOn } from './helpers.ts';

/** The vault a suite shares: started before its tests, closed after them. */
export interface SuiteVault {
  /** The running vault: read it in hooks and tests, not while the suite is collected. */
  readonly vault: TestVault;
  /** A client on the vault's admin key. */
  readonly admin: WireClient;
  /** The server's log lines. */
  readonly logLines: string[];
  /** What the log must never contain; the admin key is among them. */
  readonly secrets: string[];
  /** Records a password as a secret and returns it. */
  pw(text: string): string;
}

/**
 * Registers, in the calling `describe`, a `beforeAll` that starts a vault on `store` (on
 * PostgreSQL, in a cluster of its own) and an `afterAll` that closes it, then checks that no
 * secret reached the log.
 *
 * @param store Where the vault keeps its data.
 * @param options More options of the vault; its log lines are collected here.
 * @returns The suite's vault, readable once the `beforeAll` has run.
 */
export function vaultForSuite(
  store: StoreKind,
  options: Omit<TestVaultOptions, 'logLines'> = {},
): SuiteVault {
  let cluster: PostgresCluster | undefined;
  let vault: TestVault | undefined;
  let admin: WireClient | undefined;
  const logLines: string[] = [];
  const secrets: string[] = [];

  beforeAll(async () => {
    if (store === 'postgres') cluster = await startPostgresCluster();
    vault = await startVaultOn(store, cluster, { ...options, logLines });
    secrets.push(vault.adminKey);
    admin = clientOf(vault);
  });

  afterAll(async () => {
    await vault?.close();
    await cluster?.stop();
    expectNoSecrets(logLines, secrets);
  });

  return {
    get vault() {
      return setByBeforeAll(vault, 'the suite vault');
    },
    get admin() {
      return setByBeforeAll(admin, 'the suite vault');
    },
    logLines,
    secrets,
    pw(text) {
      secrets.push(text);
      return text;
    },
  };
}
