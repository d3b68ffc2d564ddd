import {
  chmod,
  lstat,
  mkdir,
  mkdtemp,
  readdir,
  readFile,
  rm,
  stat,
  symlink,
  writeFile,
} from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  MAX_PRIVATE_FILE_BYTES,
  privateDir,
  readPrivateFile,
  sealedFileName,
  sealingContext,
  writePrivateFile,
} from './sealed-file.ts';

let dir: string;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'vaultline-private-file-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('private directories', () => {
  it('are made mode 0700, and one of ours left open to others is closed', async () => {
    const made = join(dir, 'made', 'deeper');
    expect(await privateDir(made)).toBe(true);
    expect((await stat(made)).mode & 0o777).toBe(0o700);
    const open = join(dir, 'open');
    await mkdir(open, { mode: 0o755 });
    await chmod(open, 0o755);
    expect(await privateDir(open)).toBe(true);
    expect((await stat(open)).mode & 0o777).toBe(0o700);
  });

  it('are refused where a file or a link stands in the way', async () => {
    await writeFile(join(dir, 'file'), 'x');
    await expect(privateDir(join(dir, 'file'))).rejects.toThrow();
    await mkdir(join(dir, 'target'), { mode: 0o700 });
    await symlink(join(dir, 'target'), join(dir, 'link'));
    expect(await privateDir(join(dir, 'link'))).toBe(false);
  });
});

describe('private files', () => {
  it('are written mode 0600 through a temporary file, replaced whole, and read back', async () => {
    const path = join(dir, 'file.json');
    await writePrivateFile(path, 'first');
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    await writePrivateFile(path, 'second');
    expect(await readPrivateFile(path)).toBe('second');
    expect(await readdir(dir)).toEqual(['file.json']);
  });

  it('are made once when written exclusively: the second writer gets EEXIST and the first stays', async () => {
    const path = join(dir, 'key');
    await writePrivateFile(path, 'first', true);
    await expect(writePrivateFile(path, 'second', true)).rejects.toMatchObject({ code: 'EEXIST' });
    expect(await readPrivateFile(path)).toBe('first');
    expect(await readdir(dir)).toEqual(['key']);
  });

  it('are not read when absent, open to others, too large, a directory or a link', async () => {
    expect(await readPrivateFile(join(dir, 'absent'))).toBeUndefined();
    const open = join(dir, 'open');
    await writePrivateFile(open, 'text');
    await chmod(open, 0o644);
    expect(await readPrivateFile(open)).toBeUndefined();
    const large = join(dir, 'large');
    await writePrivateFile(large, 'x'.repeat(100));
    expect(await readPrivateFile(large, 99)).toBeUndefined();
    expect(await readPrivateFile(large, 100)).toBe('x'.repeat(100));
    await writePrivateFile(large, 'x'.repeat(MAX_PRIVATE_FILE_BYTES + 1));
    expect(await readPrivateFile(large)).toBeUndefined();
    await writePrivateFile(large, 'x'.repeat(MAX_PRIVATE_FILE_BYTES));
    expect(await readPrivateFile(large)).toHaveLength(MAX_PRIVATE_FILE_BYTES);
    expect(await readPrivateFile(dir)).toBeUndefined();
    await symlink(large, join(dir, 'link'));
    expect((await lstat(join(dir, 'link'))).isSymbolicLink()).toBe(true);
    expect(await readPrivateFile(join(dir, 'link'))).toBeUndefined();
  });

  it('fail a write into a directory that does not exist, and leave nothing behind', async () => {
    await expect(writePrivateFile(join(dir, 'missing', 'file'), 'text')).rejects.toMatchObject({
      code: 'ENOENT',
    });
    expect(await readdir(dir)).toEqual([]);
  });
});

describe('names and contexts', () => {
  it('name a file by a hash that tells nothing of the vault or the login', async () => {
    const context = sealingContext('vaultline test v1', 'https://vault.example.com/', ' Alice ');
    expect(context).toBe(sealingContext('vaultline test v1', 'https://vault.example.com', 'alice'));
    const name = sealedFileName('session', context);
    expect(name).toMatch(/^session-[0-9a-f]{32}\.json$/);
    expect(name).not.toMatch(/vault|alice/);
    expect(sealedFileName('session', sealingContext('vaultline test v1', 'https://other', 'alice'))).not.toBe(
      name,
    );
    // Written and read under that name, the content is the caller's.
    await writePrivateFile(join(dir, name), 'sealed');
    expect(await readFile(join(dir, name), 'utf8')).toBe('sealed');
  });
});
