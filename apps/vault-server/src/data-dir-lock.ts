import { mkdir, open, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { LOCK_FILE } from './constants.ts';
import { VaultServerError } from './errors.ts';

const held = new Set<string>();

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Takes the lock of a PGlite data directory: PGlite is single-process, and two processes on one
 * directory would corrupt it. A lock left by a dead process is taken over.
 *
 * @returns A function that releases it.
 */
export async function lockDataDir(dataDir: string): Promise<() => Promise<void>> {
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  const path = join(dataDir, LOCK_FILE);
  if (held.has(path))
    throw new VaultServerError(
      'invalid_request',
      `The data directory ${dataDir} is already open in this process.`,
      409,
    );
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const handle = await open(path, 'wx', 0o600);
      await handle.writeFile(String(process.pid));
      await handle.close();
      held.add(path);
      return async () => {
        held.delete(path);
        await rm(path, { force: true });
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const pid = Number((await readFile(path, 'utf8').catch(() => '')).trim());
      if (Number.isInteger(pid) && pid > 0 && pid !== process.pid && alive(pid)) {
        throw new VaultServerError(
          'invalid_request',
          `The data directory ${dataDir} is in use by process ${pid}. Stop that server first, or use PostgreSQL (DATABASE_URL) to share a vault.`,
          409,
        );
      }
      await rm(path, { force: true });
    }
  }
  throw new VaultServerError('invalid_request', `Could not lock the data directory ${dataDir}.`, 409);
}
