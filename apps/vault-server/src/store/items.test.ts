import type { Database } from '@vaultline/store';
import { describe, expect, it } from 'vitest';
import { memoryVaultForSuite } from '../../test/support/memory-vault.ts';
import type { Principal } from './access.ts';
import { operatorActor } from './actor.ts';
import { addItems, readItems } from './items.ts';
import { createStoreContext } from './store-context.ts';

describe('readItems', () => {
  const memory = memoryVaultForSuite();

  it('does the same work for an item the caller may not read as for one that does not exist', async () => {
    const { vault } = memory;
    const admin = vault.adminAs(operatorActor('test', 'test'));
    const folder = await vault.db.query<{ id: number }>(
      "INSERT INTO folders (title) VALUES ('Hidden') RETURNING id",
    );
    const folderId = Number(folder[0]!.id);
    const { id: userId } = await admin.createUser({ login: 'eve' });
    // Every statement the reads send, through a context with caches on (as in production).
    const sent: string[] = [];
    const db: Database = {
      ...vault.db,
      query: ((sql: string, params?: unknown[]) => {
        sent.push(`${sql} ${JSON.stringify(params)}`);
        return vault.db.query(sql, params);
      }) as Database['query'],
    };
    const ctx = createStoreContext(db, vault.ctx.box, 60_000);
    const [hidden] = await addItems(ctx, operatorActor('test', 'test'), [
      {
        label: 'hidden',
        password: 'hidden-pw',
        description: '',
        folderId: String(folderId),
        login: '',
        email: '',
        url: '',
        tags: '',
        anyoneCanModify: '0',
      },
    ]);
    const missing = hidden! + 1_000;
    const adminKey: Principal = { kind: 'admin', keyLabel: 'admin' };
    const eve: Principal = { kind: 'user', keyLabel: 'eve', userId, login: 'eve' };
    // The admin's read leaves the row in the cache; eve's first read fills her rights.
    expect((await readItems(ctx, adminKey, [hidden!])).map((record) => record.label)).toEqual(['hidden']);
    await readItems(ctx, eve, [missing]);
    const workOf = async (id: number) => {
      sent.length = 0;
      expect(await readItems(ctx, eve, [id])).toEqual([]);
      return sent.map((statement) => statement.replace(`[[${id}]]`, '[[<id>]]'));
    };
    for (let round = 0; round < 2; round++) expect(await workOf(hidden!)).toEqual(await workOf(missing));
    expect(await workOf(missing)).toHaveLength(1);
  });
});
