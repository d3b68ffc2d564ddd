import { createHmac } from 'node:crypto';
import { startTeamPass3Fake, type TeamPass3Fake } from '@vaultline/protocol/testing';

/** A label full of what TeamPass escapes, and characters outside the BMP. */
export const ENTITY_LABEL = `Tom & Jerry <db> "quoted" O'Brien 🦄 café`;

/** A login TeamPass 3 stores with entities (`m&uuml;ller &amp; &lt;co&gt;`). */
export const ENTITY_LOGIN = 'müller & <co>';

/** The TOTP secret of the item with a one-time code (RFC 6238's test key, Base32). */
export const TOTP_SECRET = 'GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ';

/** The users of the fake: alice may use the API, carol's API access is off. */
export const USERS = {
  alice: {
    login: 'alice',
    password: 'Alice-Pw-Zq9!x & <ü>',
    apiKey: 'aliceApiKey0123456789abcdefghijklmnopqrs',
  },
  carol: { login: 'carol', password: 'Carol-Pw-Kx7#m', apiKey: 'carolApiKey0123456789abcdefghijklmnopqrs' },
} as const;

/** The fake with its seeded items: ids and passwords by label. */
export interface SeededTeamPass3 {
  fake: TeamPass3Fake;
  items: Record<string, number>;
  passwords: Record<string, string>;
  /** Every secret tests must never see unless asked: item passwords, the users' passwords and keys. */
  secrets: string[];
}

/**
 * Starts the TeamPass 3 fake over HTTP on 127.0.0.1, seeded like a small team: alice (role Devs:
 * W on Engineering and Engineering/Databases, R on Shared) and carol (the same role, API access
 * off); an Ops folder alice cannot see; ten bench items; an item with a TOTP secret; a label full
 * of entities and emoji.
 */
export async function startSeededTeamPass3(): Promise<SeededTeamPass3> {
  const items: Record<string, number> = {};
  const passwords: Record<string, string> = {};
  const seedItems: { label: string; folder: string; password: string; login?: string; totp?: string }[] = [
    { label: 'prod db', folder: 'Engineering/Databases', password: 'Pg-Pr0d#2024!é', login: 'postgres' },
    { label: 'api token', folder: 'Engineering', password: 'tok_live_9f8e7d6c5b4a', login: 'ci-bot' },
    {
      label: 'github 2fa',
      folder: 'Engineering',
      password: 'Gh-2fa-Pw-77',
      login: 'octo',
      totp: TOTP_SECRET,
    },
    { label: ENTITY_LABEL, folder: 'Shared', password: 'Emoji-Pw-🦄-&amp;-42', login: ENTITY_LOGIN },
    { label: 'ops secret', folder: 'Ops', password: 'Ops-Only-Secret-77', login: 'root' },
  ];
  for (let i = 0; i < 10; i++)
    seedItems.push({
      label: `bench ${i}`,
      folder: 'Engineering',
      password: `Bench-Secret-${i}-${'x'.repeat(i)}`,
    });
  seedItems.forEach((item, index) => {
    items[item.label] = index + 1;
    passwords[item.label] = item.password;
  });
  const fake = await startTeamPass3Fake({
    seed: {
      folders: [
        { title: 'Engineering', children: [{ title: 'Databases' }] },
        { title: 'Shared' },
        { title: 'Ops' },
      ],
      roles: [
        { name: 'Devs', folders: { Engineering: 'W', 'Engineering/Databases': 'W', Shared: 'R' } },
        { name: 'Operators', folders: { Ops: 'W' } },
      ],
      users: [
        { ...USERS.alice, roles: ['Devs'] },
        { ...USERS.carol, roles: ['Devs'], apiEnabled: false },
      ],
      items: seedItems.map((item, index) => ({ id: index + 1, ...item })),
    },
  });
  return {
    fake,
    items,
    passwords,
    secrets: [
      ...Object.values(passwords),
      ...Object.values(USERS).flatMap((user) => [user.password, user.apiKey]),
    ],
  };
}

/**
 * The TOTP code of a secret at a time (RFC 6238, HMAC-SHA1, 6 digits, 30 s), computed here to
 * check the vault's.
 *
 * @param secret The Base32 secret.
 * @param nowMs The time.
 * @returns The code.
 */
export function totpCode(secret: string, nowMs: number): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
  let bits = '';
  for (const char of secret.replace(/=+$/, '')) bits += alphabet.indexOf(char).toString(2).padStart(5, '0');
  const key = Buffer.from(bits.match(/.{8}/g)!.map((byte) => Number.parseInt(byte, 2)));
  const counter = Buffer.alloc(8);
  counter.writeBigUInt64BE(BigInt(Math.floor(nowMs / 1000 / 30)));
  const hmac = createHmac('sha1', key).update(counter).digest();
  const offset = hmac[hmac.length - 1]! & 0x0f;
  const value = (hmac.readUInt32BE(offset) & 0x7fffffff) % 1_000_000;
  return String(value).padStart(6, '0');
}
