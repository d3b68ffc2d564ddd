// The linked accounts on PGlite: the core's credentials in memory, the same sealed format in the store.
import type { Database } from '@vaultline/store';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase } from '../store/database.ts';
import { createLinkStore } from './links.ts';
import { createSealer, type Sealer } from './sealer.ts';

let db: Database;
let sealer: Sealer;

beforeEach(async () => {
  db = await openDatabase({ kind: 'pglite', dataDir: 'memory://' });
  sealer = createSealer(Buffer.alloc(32, 5), []);
});
afterEach(() => db.close());

/** A row as earlier releases wrote it: the secrets alone sealed, the login in its own column. */
async function insertStoredRow(slackUser: string, login: string, secrets: Record<string, string>) {
  const version = 'v-earlier';
  await db.query(
    `INSERT INTO linked_accounts (slack_user, slack_team, login, method, credentials, session_token,
       key_id, version, linked_at, refused_at)
     VALUES ($1, 'T1', $2, $3, $4, NULL, $5, $6, 1000, NULL)`,
    [
      slackUser,
      login,
      'personalAccessToken' in secrets ? 'token' : 'password',
      sealer.seal(JSON.stringify(secrets), `credentials/${slackUser}/${version}/${login}`),
      sealer.keyId,
      version,
    ],
  );
}

describe('createLinkStore', () => {
  it('opens links stored before, as the core’s credentials with the login', async () => {
    await insertStoredRow('UALICE', 'alice', { password: 'Alice-Pw-1', apiKey: 'alice-key-1' });
    await insertStoredRow('UBOB', 'bob', { personalAccessToken: 'bob-token-1' });
    const links = createLinkStore(db, sealer);
    expect(await links.get('UALICE')).toMatchObject({
      state: 'linked',
      link: {
        login: 'alice',
        method: 'password',
        credentials: { kind: 'password', login: 'alice', password: 'Alice-Pw-1', apiKey: 'alice-key-1' },
      },
    });
    expect(await links.get('UBOB')).toMatchObject({
      state: 'linked',
      link: {
        login: 'bob',
        method: 'personal-access-token',
        credentials: { kind: 'personal-access-token', login: 'bob', personalAccessToken: 'bob-token-1' },
      },
    });
  });

  it('stores the secrets alone, in the format earlier releases read', async () => {
    const links = createLinkStore(db, sealer);
    const { link } = await links.save({
      slackUser: 'UALICE',
      slackTeam: 'T1',
      credentials: { kind: 'password', login: 'alice', password: 'Alice-Pw-2', apiKey: 'alice-key-2' },
      token: undefined,
    });
    expect(link).toMatchObject({ login: 'alice', method: 'password' });
    const [row] = await db.query<{ login: string; method: string; credentials: string; version: string }>(
      'SELECT login, method, credentials, version FROM linked_accounts WHERE slack_user = $1',
      ['UALICE'],
    );
    expect(row).toMatchObject({ login: 'alice', method: 'password' });
    const opened = sealer.open(String(row?.credentials), `credentials/UALICE/${row?.version}/alice`);
    expect(JSON.parse(String(opened))).toEqual({ password: 'Alice-Pw-2', apiKey: 'alice-key-2' });
  });
});
