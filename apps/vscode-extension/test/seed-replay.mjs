// Starts the protocol package's TeamPass replay server (TeamPass 2.1's legacy API as written down in
// docs/teampass.md: one shared key, restricted search segment, "No results" for
// empty lists) twice, seeded like the vault fixture: the same folders, items and attachment, alice
// and bob with the same rights. The second one has no file endpoints (every TeamPass release).
import { randomBytes } from 'node:crypto';
import { startReplayServer } from '@vaultline/protocol/testing';

/**
 * @param {object} fixture The vault fixture (`seedVault`).
 * @returns {Promise<{ servers: { close(): Promise<void> }[], teampass: object }>}
 */
export async function seedReplay(fixture) {
  const key = randomBytes(24).toString('hex');
  const servers = [await startReplayServer({ apiKey: key }), await startReplayServer({ apiKey: key })];
  servers[1].fileEndpoints = false;
  const folders = { infra: 1, databases: 2, payments: 3 };
  const items = {};
  for (const server of servers) {
    server.items.clear();
    server.folders.clear();
    server.users.clear();
    server.files.clear();
    const folder = (id, title, parent) =>
      server.folders.set(String(id), {
        id: String(id),
        title,
        parent_id: String(parent),
        complexity: '50',
        renewal: '0',
        personal: '0',
      });
    folder(folders.infra, 'Infrastructure', 0);
    folder(folders.databases, 'Databases', folders.infra);
    folder(folders.payments, 'Payments', 0);
    const folderOf = {
      [fixture.folders.infra]: folders.infra,
      [fixture.folders.databases]: folders.databases,
      [fixture.folders.payments]: folders.payments,
    };
    let id = 20;
    for (const [name, item] of Object.entries(fixture.items)) {
      const itemId = id++;
      items[name] = { ...item, id: itemId, folderId: folderOf[item.folderId] };
      server.items.set(String(itemId), {
        id: String(itemId),
        label: item.label,
        description: '',
        login: item.login,
        email: item.email,
        url: item.url,
        pw: item.password,
        folder_id: String(folderOf[item.folderId]),
        tags: '',
        anyone_can_modify: '0',
      });
    }
    server.users.set('alice', { rights: { 1: 'W', 2: 'W', 3: 'R' } });
    server.users.set('bob', { rights: { 1: 'R' } });
    if (server.fileEndpoints) {
      server.files.set('900', {
        id: '900',
        itemId: String(items.db.id),
        name: fixture.attachment.name,
        type: 'text/plain',
        bytes: Buffer.from(fixture.attachment.text),
      });
    }
  }
  return {
    servers,
    teampass: {
      url: servers[0].url,
      noFilesUrl: servers[1].url,
      key,
      folders,
      items,
      attachment: { ...fixture.attachment, itemId: items.db.id },
    },
  };
}
