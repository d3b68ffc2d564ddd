import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { IdentityFileError, readIdentityMap, readUserDirectory } from './identity.ts';

async function file(content: string): Promise<string> {
  const path = join(await mkdtemp(join(tmpdir(), 'identity-')), 'f.csv');
  await writeFile(path, content);
  return path;
}

describe('readIdentityMap', () => {
  it('reads slack_user_id,login lines with a header, comments and blank lines', async () => {
    const map = await readIdentityMap(
      await file('slack_user_id,vault_login\n# ops\nUALICE, alice\n\nW0BOB,bob.smith\n'),
    );
    expect([...map]).toEqual([
      ['UALICE', 'alice'],
      ['W0BOB', 'bob.smith'],
    ]);
  });

  it.each([
    ['ualice,alice', 'a Slack user id'],
    ['UALICE,', 'a vault login'],
    ['UALICE,a/b', 'a login without /'],
    ['UALICE,alice,extra', 'two comma-separated values'],
  ])('names the file and line of %j', async (line, message) => {
    const path = await file(`UBOB,bob\n${line}\n`);
    await expect(readIdentityMap(path)).rejects.toThrow(IdentityFileError);
    await expect(readIdentityMap(path)).rejects.toThrow(`${path}:2: expected ${message}`);
  });
});

describe('readUserDirectory', () => {
  it('matches emails case-insensitively and marks shared emails as ambiguous', async () => {
    const directory = await readUserDirectory(
      await file('login,email\nalice,Alice@Example.com\nbob,team@example.com\nbot,team@example.com\n'),
    );
    expect(directory.get('alice@example.com')).toBe('alice');
    expect(directory.get('team@example.com')).toBeNull();
  });

  it('refuses a line without a valid email', async () => {
    await expect(readUserDirectory(await file('alice,not-an-email\n'))).rejects.toThrow(
      /:1: expected an email address/,
    );
  });
});

describe('header lines', () => {
  it.each([
    ['slack_user,login', readIdentityMap, 'UALICE,alice\n'],
    ['Slack User ID, Vault Login', readIdentityMap, 'UALICE,alice\n'],
    ['# who is who\n\nslack_user_id,vault_login', readIdentityMap, 'UALICE,alice\n'],
    ['vault_login,email', readUserDirectory, 'alice,alice@example.com\n'],
    ['Login,E-mail', readUserDirectory, 'alice,alice@example.com\n'],
  ] as const)('skips the header %j before the rows', async (header, read, rows) => {
    const read2 = read as (path: string) => Promise<Map<string, string | null>>;
    expect((await read2(await file(`${header}\n${rows}`))).size).toBe(1);
  });

  it('refuses a header-like line after the first row, naming the line', async () => {
    const path = await file('UALICE,alice\nslack_user_id,vault_login\n');
    await expect(readIdentityMap(path)).rejects.toThrow(`${path}:2: expected a Slack user id`);
  });

  it('says what a header must look like when the first line is neither a row nor a header', async () => {
    const path = await file('# linked\nname,mail address x\nalice,alice@example.com\n');
    await expect(readUserDirectory(path)).rejects.toThrow(
      `${path}:2: expected an email address, received "name,mail address x". A header line must name the two columns, like "vault_login,email".`,
    );
  });
});
