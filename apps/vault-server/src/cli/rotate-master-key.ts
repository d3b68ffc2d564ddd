import { rename } from 'node:fs/promises';
import { generateMasterKey, masterKeyPath, parseMasterKey, writeSecretFile } from '../crypto/master-key.ts';
import { createSecretBox } from '../crypto/secret-box.ts';
import type { Actor } from '../store/actor.ts';
import { reencryptFiles } from '../store/files.ts';
import { resealItemSecrets } from '../store/item-secrets.ts';
import { reencryptAccounts } from '../store/upstream-accounts.ts';
import { auditWrite } from '../store/write-audit.ts';
import { openVault, type VaultOptions } from '../vault.ts';

/** What a rotation did. */
export interface RotationResult {
  /** The new key, when it must be handed to the operator (the old one came from VAULTLINE_MASTER_KEY). */
  newKey: string | undefined;
  items: number;
  files: number;
  /** Upstream accounts whose credentials were re-sealed. */
  accounts: number;
}

/**
 * Re-encrypts every password (with the item's TOTP secret and custom fields), attachment and the key check under a new master key, in one
 * transaction, in the current format of `@vaultline/sealer` (values still in the server's first
 * format are sealed again in it: the migration of old data). With a key file, the new key is written to `master.key.next` before the commit and
 * renamed over `master.key` after it; a crash in between is finished on the next start. The
 * rotation is audited with `actor`, in the same transaction.
 */
export async function rotateMasterKey(
  actor: Actor,
  options: Omit<VaultOptions, 'createMasterKey'> & { newKey?: string | undefined },
): Promise<RotationResult> {
  const vault = await openVault({ ...options, createMasterKey: false });
  try {
    const newKey = options.newKey ?? generateMasterKey();
    const next = createSecretBox(parseMasterKey(newKey, 'the new master key'));
    const old = vault.ctx.box;
    const usesFile = options.masterKey === undefined && options.dataDir !== undefined;
    const path = usesFile ? masterKeyPath(options.dataDir!) : undefined;
    if (path) await writeSecretFile(`${path}.next`, newKey);
    const counts = await vault.db.transaction(async (tx) => {
      const items = await resealItemSecrets(tx, old, next);
      const files = await reencryptFiles(tx, old, next);
      const accounts = await reencryptAccounts(tx, old, next);
      const [canary] = await tx.query<{ value: Uint8Array }>("SELECT value FROM meta WHERE name = 'canary'");
      await tx.query("UPDATE meta SET value = $1 WHERE name = 'canary'", [
        next.seal(old.open(canary!.value)),
      ]);
      await auditWrite(
        tx,
        actor,
        'rotateMasterKey',
        `${items} passwords, ${files} attachments${accounts > 0 ? `, ${accounts} upstream accounts` : ''}`,
      );
      return { items, files, accounts };
    });
    if (path) await rename(`${path}.next`, path);
    return { newKey: usesFile ? undefined : newKey, ...counts };
  } finally {
    await vault.close();
  }
}
