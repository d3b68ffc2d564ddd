import { chmod, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SealedSchema, sealingContext, unseal } from '@vaultline/sealer/node';
import { sealLegacyFields } from '@vaultline/sealer/testing';
import * as v from 'valibot';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  machineKeyPath,
  readSecretsFile,
  removeSecretsFile,
  secretsFilePath,
  writeSecretsFile,
} from './secret-file.ts';

let dir: string;
let env: { configDir: string; stateDir: string };
const url = 'https://vault.example.com';
const credentials = { password: 'Pw-Zq81-Secret', apiKey: 'K'.repeat(40) };

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'vaultline-secret-file-'));
  env = { configDir: join(dir, 'config'), stateDir: join(dir, 'state') };
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('the secrets file', () => {
  it('seals the secrets under one machine key, made once even by processes racing to make it', async () => {
    await Promise.all([
      writeSecretsFile(env, url, 'alice', credentials),
      writeSecretsFile(env, url, 'bob', { apiKey: 'B'.repeat(40) }),
      writeSecretsFile(env, `${url}/other`, 'alice', { apiKey: 'C'.repeat(40) }),
    ]);
    expect(await readSecretsFile(env, url, 'alice')).toEqual({ status: 'ok', credentials });
    expect(await readSecretsFile(env, url, 'bob')).toEqual({
      status: 'ok',
      credentials: { apiKey: 'B'.repeat(40) },
    });
    expect((await stat(machineKeyPath(env))).mode & 0o777).toBe(0o600);
    const text = await readFile(secretsFilePath(env, url, 'alice'), 'utf8');
    for (const value of Object.values(credentials)) expect(text).not.toContain(value);
  });

  it('keeps the secrets by their kind’s name, as files written by earlier versions do', async () => {
    await writeSecretsFile(env, url, 'alice', { ...credentials, login: 'alice' });
    const key = Buffer.from(await readFile(machineKeyPath(env), 'utf8'), 'base64');
    const context = sealingContext('vaultline secrets file v1', url, 'alice');
    const record = v.parse(
      v.object(SealedSchema),
      JSON.parse(await readFile(secretsFilePath(env, url, 'alice'), 'utf8')),
    );
    expect(JSON.parse(unseal(record, key, context, Buffer.from(context)))).toEqual({
      'api-key': 'K'.repeat(40),
      password: 'Pw-Zq81-Secret',
    });
  });

  it('does not open with another key, under another connection’s name, or changed', async () => {
    await writeSecretsFile(env, url, 'alice', credentials);
    await writeSecretsFile(env, url, 'bob', { apiKey: 'B'.repeat(40) });
    const path = secretsFilePath(env, url, 'alice');
    const sealed = await readFile(path, 'utf8');
    // Another connection's file copied over this one's: its context differs.
    await writeFile(path, await readFile(secretsFilePath(env, url, 'bob'), 'utf8'));
    expect(await readSecretsFile(env, url, 'alice')).toEqual({ status: 'unreadable', path });
    // One changed byte of the sealed data.
    const record = JSON.parse(sealed) as { sealed: string };
    const bytes = Buffer.from(record.sealed, 'base64url');
    bytes[bytes.length - 1] = bytes[bytes.length - 1]! ^ 1;
    await writeFile(path, JSON.stringify({ ...record, sealed: bytes.toString('base64url') }));
    expect(await readSecretsFile(env, url, 'alice')).toEqual({ status: 'unreadable', path });
    // The right file with another machine's key.
    await writeFile(path, sealed);
    expect((await readSecretsFile(env, url, 'alice')).status).toBe('ok');
    const key = await readFile(machineKeyPath(env), 'utf8');
    await writeFile(machineKeyPath(env), `${Buffer.alloc(32, 1).toString('base64')}\n`, { mode: 0o600 });
    expect(await readSecretsFile(env, url, 'alice')).toEqual({ status: 'unreadable', path });
    // A file others may read is not used.
    await writeFile(machineKeyPath(env), key);
    expect((await readSecretsFile(env, url, 'alice')).status).toBe('ok');
    await chmod(path, 0o644);
    expect((await readSecretsFile(env, url, 'alice')).status).toBe('unreadable');
  });

  it('opens a file sealed before @vaultline/sealer, and writes the sealer’s format the next time', async () => {
    // The machine key, then the file as the CLI wrote it before: salt, iv, tag and data fields.
    await writeSecretsFile(env, url, 'bob', { apiKey: 'B'.repeat(40) });
    const key = Buffer.from((await readFile(machineKeyPath(env), 'utf8')).trim(), 'base64');
    const context = sealingContext('vaultline secrets file v1', url, 'alice');
    const path = secretsFilePath(env, url, 'alice');
    const stored = JSON.stringify({ 'api-key': credentials.apiKey, password: credentials.password });
    const old = { v: 1, ...sealLegacyFields(stored, key, context, Buffer.from(context)) };
    await writeFile(path, `${JSON.stringify(old)}\n`, { mode: 0o600 });
    expect(await readSecretsFile(env, url, 'alice')).toEqual({ status: 'ok', credentials });
    await writeSecretsFile(env, url, 'alice', { ...credentials, password: 'Pw-Zq82-Secret' });
    expect(Object.keys(JSON.parse(await readFile(path, 'utf8'))).sort()).toEqual(['sealed', 'v']);
    expect(await readSecretsFile(env, url, 'alice')).toEqual({
      status: 'ok',
      credentials: { ...credentials, password: 'Pw-Zq82-Secret' },
    });
  });

  it('is removed, and says whether there was one', async () => {
    expect(await readSecretsFile(env, url, 'alice')).toEqual({ status: 'absent' });
    await writeSecretsFile(env, url, 'alice', credentials);
    expect(await removeSecretsFile(env, url, 'alice')).toBe(true);
    expect(await removeSecretsFile(env, url, 'alice')).toBe(false);
    expect(await readSecretsFile(env, url, 'alice')).toEqual({ status: 'absent' });
  });
});
