import { type AccessChecker, type Folder, permissionsOf, type VaultClient } from '@vaultline/protocol';

/**
 * The folders a login may access and its right on each (read/userfolders: no passwords), kept for
 * a short while. Reads are decided from the folder right first; only items outside any readable
 * folder go to the access checker, whose read/userpw returns every password of the user.
 */
export class FolderRights {
  private cached: { at: number; folders: Promise<Folder[]> } | undefined;
  private readonly client: Pick<VaultClient, 'readUserFolders'>;
  private readonly login: string;
  private readonly ttlMs: number;

  constructor(client: Pick<VaultClient, 'readUserFolders'>, login: string, ttlMs = 30_000) {
    this.client = client;
    this.login = login;
    this.ttlMs = ttlMs;
  }

  /** The login's folders in the vault's order. */
  list(): Promise<Folder[]> {
    if (!this.cached || Date.now() - this.cached.at > this.ttlMs) {
      const folders = this.client.readUserFolders({ login: this.login });
      const entry = { at: Date.now(), folders };
      this.cached = entry;
      // A failed read is not kept: the next call asks again.
      folders.catch(() => {
        if (this.cached === entry) this.cached = undefined;
      });
    }
    return this.cached.folders;
  }

  /** Whether the login may read an item, given the folder that holds it. */
  async canRead(access: AccessChecker, item: { id: number; folderId: number }): Promise<boolean> {
    const folder = (await this.list()).find((entry) => entry.id === item.folderId);
    if (permissionsOf(folder?.accessType).read) return true;
    return access.canRead(this.login, item);
  }

  invalidate(): void {
    this.cached = undefined;
  }
}
