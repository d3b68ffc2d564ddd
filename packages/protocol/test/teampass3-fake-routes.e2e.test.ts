/**
 * The TeamPass 3 fake answers every row of the TeamPass 3 table, behind the API permission the
 * row names: a row added to the table fails here until the fake routes it (its `item/` and
 * `folder/` actions, or the routes before them). The fake stays TeamPass's emulation; it is held
 * to the table, not made from it.
 */

import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  TEAMPASS3_ENDPOINT_NAMES,
  type TeamPass3Permission,
  teampass3Endpoints,
} from '../src/teampass3/endpoints.ts';
import { startTeamPass3Fake, type TeamPass3Fake } from '../src/testing.ts';

const ALICE = { login: 'alice', password: 'alice-pw', apiKey: 'alice-key' };
const ACCESS_DENIED = 'Access denied: insufficient permissions for this action';
const ALL: Record<TeamPass3Permission, boolean> = { create: true, read: true, update: true, delete: true };

let fake: TeamPass3Fake;
let token: string;

beforeAll(async () => {
  fake = await startTeamPass3Fake({ seed: { users: [ALICE] } });
  token = await signIn();
});
afterAll(() => fake.close());
beforeEach(() => fake.setApiFlags(ALICE.login, ALL));

async function signIn(): Promise<string> {
  const answer = await fetch(`${fake.url}/api/index.php/authorize`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ login: ALICE.login, password: ALICE.password, apikey: ALICE.apiKey }),
  });
  expect(answer.status).toBe(200);
  return ((await answer.json()) as { token: string }).token;
}

/** The `detail` of the fake's answer to the row's method and path sent without parameters; `''` for none. */
async function detailOf(name: (typeof TEAMPASS3_ENDPOINT_NAMES)[number]): Promise<string> {
  const row = teampass3Endpoints[name];
  const answer = await fetch(`${fake.url}/api/index.php${row.path}`, {
    method: row.method,
    headers: row.auth === 'bearer' ? { authorization: `Bearer ${token}` } : {},
  });
  const text = await answer.text();
  try {
    return (JSON.parse(text) as { detail?: string } | null)?.detail ?? '';
  } catch {
    return '';
  }
}

describe('the TeamPass 3 fake', () => {
  it.each(TEAMPASS3_ENDPOINT_NAMES.filter((name) => name !== 'logout'))('routes %s', async (name) => {
    expect(
      await detailOf(name),
      'route it in src/testing/teampass3/ (ITEM_ACTIONS or FOLDER_ACTIONS, its permission in router.ts)',
    ).not.toMatch(/^(Unknown route|Access denied: insufficient)/);
  });

  it.each(
    TEAMPASS3_ENDPOINT_NAMES.flatMap((name) => {
      const permission = teampass3Endpoints[name].permission;
      return permission === undefined ? [] : [[name, permission] as const];
    }),
  )('checks %s against the %s permission, and no other', async (name, permission) => {
    fake.setApiFlags(ALICE.login, { ...ALL, [permission]: false });
    expect(await detailOf(name)).toBe(ACCESS_DENIED);
    fake.setApiFlags(ALICE.login, {
      create: false,
      read: false,
      update: false,
      delete: false,
      [permission]: true,
    });
    expect(await detailOf(name)).not.toBe(ACCESS_DENIED);
  });

  it('routes logout, which ends the session', async () => {
    expect(await detailOf('logout')).not.toMatch(/^(Unknown route|Access denied: insufficient)/);
    token = await signIn();
  });
});
