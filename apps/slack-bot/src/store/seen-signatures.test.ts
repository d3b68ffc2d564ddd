// The replay memory on PGlite: decided in memory, copied to the store once a burst pauses.
import type { Database } from '@vaultline/store';
import { describe, expect, it } from 'vitest';
import { openDatabase } from './database.ts';
import { createSeenSignatures } from './seen-signatures.ts';

const KEEP_MS = 600_000;

async function storedSignatures(db: Database): Promise<string[]> {
  const rows = await db.query<{ signature: string }>(
    'SELECT signature FROM seen_signatures ORDER BY signature',
  );
  return rows.map((row) => row.signature);
}

describe('createSeenSignatures on PGlite', () => {
  it('refuses a replay at once, and copies a burst to the store in one go once requests pause', async () => {
    const db = await openDatabase({ kind: 'pglite', dataDir: 'memory://' });
    try {
      let pause: (() => void) | undefined;
      const quiet = () =>
        new Promise<void>((resolve) => {
          pause = resolve;
        });
      const seen = createSeenSignatures(db, { quiet });
      expect(await seen.claim('v0=a', KEEP_MS)).toBe(true);
      expect(await seen.claim('v0=b', KEEP_MS)).toBe(true);
      expect(await seen.claim('v0=a', KEEP_MS)).toBe(false);
      expect(await seen.claim('v0=c', KEEP_MS)).toBe(true);
      // The burst is still going: nothing written yet.
      expect(await storedSignatures(db)).toEqual([]);
      pause?.();
      await seen.flush();
      expect(await storedSignatures(db)).toEqual(['v0=a', 'v0=b', 'v0=c']);
      // A restarted bot (a new memory over the same store) refuses them too.
      const restarted = createSeenSignatures(db);
      expect(await restarted.claim('v0=b', KEEP_MS)).toBe(false);
      expect(await restarted.claim('v0=d', KEEP_MS)).toBe(true);
      await restarted.flush();
      expect(await storedSignatures(db)).toEqual(['v0=a', 'v0=b', 'v0=c', 'v0=d']);
    } finally {
      await db.close();
    }
  });

  it('writes what is pending on flush (a stop) even while requests keep arriving', async () => {
    const db = await openDatabase({ kind: 'pglite', dataDir: 'memory://' });
    try {
      const seen = createSeenSignatures(db, { quiet: () => new Promise<void>(() => {}) });
      expect(await seen.claim('v0=x', KEEP_MS)).toBe(true);
      await seen.flush();
      expect(await storedSignatures(db)).toEqual(['v0=x']);
    } finally {
      await db.close();
    }
  });
});
