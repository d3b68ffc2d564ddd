import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestVault, type TestVault } from '@vaultline/vault-server/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENV } from '../src/constants.ts';
import { type CliEnvironment, readEnvironment } from '../src/env.ts';
import { CliError } from '../src/errors.ts';
import { withConnections } from '../src/reach.ts';

let vault: TestVault;
let home: string;
let env: CliEnvironment;

beforeAll(async () => {
  vault = await startTestVault();
  home = await mkdtemp(join(tmpdir(), 'vaultline-reach-'));
  env = readEnvironment({
    HOME: home,
    XDG_CONFIG_HOME: join(home, 'config'),
    [ENV.cacheDir]: join(home, 'cache'),
    [ENV.url]: vault.url,
    [ENV.apiKey]: vault.adminKey,
  });
});
afterAll(async () => {
  await vault?.close();
  await rm(home, { recursive: true, force: true });
});

describe('withConnections', () => {
  it('runs the work on each connection named, and answers in the order named', async () => {
    const answers = await withConnections(
      env,
      [undefined, undefined],
      undefined,
      async (connection, index) => {
        const { dialect } = await connection.client.capabilities();
        return `${index}:${dialect}:${connection.url}`;
      },
    );
    expect(answers).toEqual([`0:legacy:${vault.url}`, `1:legacy:${vault.url}`]);
  });

  it('lets every connection finish, then throws the failure of the first one named', async () => {
    const finished: number[] = [];
    const failing = withConnections(
      env,
      [undefined, 'nowhere', undefined],
      undefined,
      async (connection, index) => {
        await connection.client.capabilities();
        finished.push(index);
        // The first one named fails last in time: still its failure is the one thrown.
        if (index === 0) throw new Error('the first one named');
      },
    );
    await expect(failing).rejects.toThrow('the first one named');
    expect(finished.sort()).toEqual([0, 2]);

    const unknown = await withConnections(env, [undefined, 'nowhere'], undefined, async () => 'ok').catch(
      (error: unknown) => error,
    );
    expect(unknown).toBeInstanceOf(CliError);
    expect((unknown as CliError).code).toBe('no_connection');
    expect((unknown as CliError).message).toContain('"nowhere"');
  });
});
