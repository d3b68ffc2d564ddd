import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { click, nextId, SLACK_USERS, slash, startBot, type TestBot } from './support/bot.ts';
import { type FakeSlack, startFakeSlack } from './support/fake-slack.ts';
import { type SeededVault, startSeededVault } from './support/seed.ts';

let seeded: SeededVault;
let slack: FakeSlack;
let bot: TestBot;

beforeAll(async () => {
  [seeded, slack] = await Promise.all([startSeededVault(), startFakeSlack()]);
  bot = await startBot({
    VAULT_URL: seeded.vault.url,
    VAULT_API_KEY: seeded.vault.adminKey,
    SLACK_API_URL: slack.apiUrl,
    REVEAL_SECONDS: '1',
    REVEAL_RATE_LIMIT: '100',
    COMMAND_RATE_LIMIT: '1000',
  });
});
afterAll(async () => {
  await bot?.stop();
  await slack?.close();
  await seeded?.vault.close();
});

/** The operations the vault server answered since `from` (its request log: one line per request). */
function opsSince(from: number): string[] {
  return (
    seeded.logLines
      .slice(from)
      .map((line) => JSON.parse(line) as { msg?: string; op?: string })
      // The keyless identification carries no vault data.
      .filter((entry) => entry.msg === 'request' && entry.op !== undefined && entry.op !== 'info/version')
      .map((entry) => entry.op!)
  );
}

/** What the vault server audited as read since audit record `from` (secret reads name their targets). */
async function readTargetsSince(from: number): Promise<string[]> {
  const rows = await seeded.vault.server.vault.db.query<{ action: string; target: string }>(
    "SELECT action, target FROM audit WHERE id > $1 AND action LIKE 'read/%' ORDER BY id",
    [from],
  );
  return rows.map((row) => `${row.action} ${row.target}`);
}

async function lastAuditId(): Promise<number> {
  const [row] = await seeded.vault.server.vault.db.query<{ id: number }>('SELECT max(id) AS id FROM audit');
  return Number(row?.id ?? 0);
}

async function ask(user: string, text: string): Promise<string> {
  const id = nextId();
  const ack = await slash(bot.base, { text, user_id: user, response_url: slack.responseUrl(id) });
  expect(ack.status).toBe(200);
  const answer = await slack.firstResponse(id, 10_000);
  return JSON.stringify(answer);
}

describe('the least secret that answers, in Slack', () => {
  it('answers /vault get <id> from the folder rights and that item alone, never read/userpw', async () => {
    const id = seeded.items['github-deploy']!;
    const forbidden = seeded.items['prod-db']!;
    const log = seeded.logLines.length;
    const audit = await lastAuditId();
    expect(await ask(SLACK_USERS.alice, `get ${id}`)).toContain('github-deploy');
    expect(await ask(SLACK_USERS.alice, `get ${forbidden}`)).toContain('No item you can read');
    const ops = opsSince(log);
    expect(ops).not.toContain('read/userpw');
    expect([...new Set(ops)].sort()).toEqual(['read/items', 'read/userfolders']);
    await expect
      .poll(() => readTargetsSince(audit), { timeout: 5_000 })
      .toEqual([`read/items items ${id}`, `read/items items ${forbidden}`]);
  });

  it('reveals from the folder rights read afresh and that item alone, never read/userpw', async () => {
    const id = seeded.items['staging-db']!;
    const log = seeded.logLines.length;
    const clickId = nextId('c');
    const res = await click(
      bot.base,
      SLACK_USERS.alice,
      'vault_reveal',
      String(id),
      slack.responseUrl(clickId),
    );
    expect(res.status).toBe(200);
    await slack.firstResponse(clickId, 10_000);
    const ops = opsSince(log);
    expect(ops).not.toContain('read/userpw');
    expect(ops.filter((op) => op === 'read/items').length).toBeGreaterThan(0);
    expect([...new Set(ops)].sort()).toEqual(['read/items', 'read/userfolders']);
  });
});
