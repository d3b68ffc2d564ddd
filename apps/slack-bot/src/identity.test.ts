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
