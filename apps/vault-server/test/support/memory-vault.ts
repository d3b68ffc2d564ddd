import { afterAll, beforeAll } from 'vitest';
import { generateMasterKey } from '../../src/crypto/master-key.ts';
import { createLogger } from '../../src/logger.ts';
import { type AuditWriter, createAuditWriter } from '../../src/store/audit-writer.ts';
import { openVault, type Vault } from '../../src/vault.ts';
import { setByBeforeAll } from './helpers.ts';

/** A vault in memory and an audit writer on it, without a server: for tests of the HTTP layer. */
export interface MemoryVault {
  /** The vault (PGlite in memory, caches off): read it in hooks and tests only. */
  readonly vault: Vault;
  /** Writes the vault's audit records; logs nothing. */
  readonly audit: AuditWriter;
}

/**
 * Registers, in the calling `describe`, a `beforeAll` that opens a {@link MemoryVault} and an
 * `afterAll` that flushes its audit and closes it.
 *
 * @returns The vault and its audit writer, readable once the `beforeAll` has run.
 */
export function memoryVaultForSuite(): MemoryVault {
  let vault: Vault | undefined;
  let audit: AuditWriter | undefined;

  beforeAll(async () => {
    vault = await openVault({
      dataDir: undefined,
      databaseUrl: undefined,
      masterKey: generateMasterKey(),
      cacheTtlMs: 0,
      createMasterKey: true,
    });
    audit = createAuditWriter(vault.db, createLogger('silent', { write: () => {} }));
  });

  afterAll(async () => {
    await audit?.flush();
    await vault?.close();
  });

  return {
    get vault() {
      return setByBeforeAll(vault, 'the memory vault');
    },
    get audit() {
      return setByBeforeAll(audit, 'the memory vault');
    },
  };
}
