// Embedded PGlite through the store's interface (real PGlite, in this process).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase, openPglite } from './open.ts';

const dirs: string[] = [];
afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

describe('openPglite', () => {
  it("sizes PostgreSQL's start-up memory for one process: 4MB buffer pool, 5 connections, 16MB maintenance", async () => {
    const db = await openPglite();
    try {
      const rows = await db.query<{ name: string; setting: string; unit: string | null }>(
        `SELECT name, setting, unit FROM pg_settings
          WHERE name IN ('shared_buffers', 'max_connections', 'maintenance_work_mem') ORDER BY name`,
      );
      // shared_buffers is counted in 8kB pages: 512 of them are 4MB.
      expect(rows).toEqual([
        { name: 'maintenance_work_mem', setting: '16384', unit: 'kB' },
        { name: 'max_connections', setting: '5', unit: null },
        { name: 'shared_buffers', setting: '512', unit: '8kB' },
      ]);
    } finally {
      await db.close();
    }
  });

  it('applies the settings it is given after its own: a smaller buffer pool', async () => {
    const db = await openPglite({ settings: ['shared_buffers=1MB'] });
    try {
      const rows = await db.query<{ name: string; setting: string }>(
        `SELECT name, setting FROM pg_settings WHERE name IN ('shared_buffers', 'max_connections') ORDER BY name`,
      );
      // 128 pages of 8kB; the store's other settings stay.
      expect(rows).toEqual([
        { name: 'max_connections', setting: '5' },
        { name: 'shared_buffers', setting: '128' },
      ]);
    } finally {
      await db.close();
    }
  });

  it('reads bigint as numbers, and fails a statement whose bigint a number cannot hold', async () => {
    const db = await openPglite();
    try {
      expect(await db.query('SELECT 42::bigint AS n, $1::bigint AS m', [1_767_225_600_000])).toEqual([
        { n: 42, m: 1_767_225_600_000 },
      ]);
      await expect(db.query('SELECT 9007199254740993::bigint AS n')).rejects.toThrow(
        /beyond what a number holds/,
      );
      // The database is still usable.
      expect(await db.query('SELECT 1 AS one')).toEqual([{ one: 1 }]);
    } finally {
      await db.close();
    }
  });

  it('writes and reads bytea byte for byte, a view into a larger buffer too', async () => {
    const db = await openPglite();
    try {
      const bytes = new Uint8Array(256 * 1024 + 3);
      for (let i = 0; i < bytes.length; i++) bytes[i] = (i * 7919) % 256;
      const view = new Uint8Array(bytes.buffer, 3, 128 * 1024);
      const [row] = await db.query<{ whole: Uint8Array; part: Uint8Array; n: number }>(
        'SELECT $1::bytea AS whole, $2::bytea AS part, length($2::bytea) AS n',
        [bytes, view],
      );
      expect(Buffer.from(row!.whole).equals(Buffer.from(bytes))).toBe(true);
      expect(Buffer.from(row!.part).equals(Buffer.from(view))).toBe(true);
      expect(row!.n).toBe(view.byteLength);
    } finally {
      await db.close();
    }
  });

  it('commits a transaction that resolves and rolls back one that throws', async () => {
    const db = await openPglite();
    try {
      await db.exec('CREATE TABLE t (v text); CREATE INDEX t_v ON t (v)');
      await db.transaction(async (tx) => {
        await tx.query('INSERT INTO t VALUES ($1)', ['kept']);
      });
      await expect(
        db.transaction(async (tx) => {
          await tx.query('INSERT INTO t VALUES ($1)', ['dropped']);
          throw new Error('changed my mind');
        }),
      ).rejects.toThrow('changed my mind');
      expect(await db.query('SELECT v FROM t')).toEqual([{ v: 'kept' }]);
    } finally {
      await db.close();
    }
  });

  it('keeps its data in a directory across a restart, and starts copies from a dump', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'store-pglite-'));
    dirs.push(dir);
    const first = await openDatabase({ kind: 'pglite', dataDir: dir });
    await first.exec("CREATE TABLE t (v text); INSERT INTO t VALUES ('persisted')");
    await first.close();
    const again = await openPglite({ dataDir: dir });
    try {
      expect(await again.query('SELECT v FROM t')).toEqual([{ v: 'persisted' }]);
      const snapshot = await again.dump();
      const copy = await openPglite({ snapshot });
      try {
        await copy.exec("INSERT INTO t VALUES ('only in the copy')");
        expect(await copy.query('SELECT count(*) AS n FROM t')).toEqual([{ n: 2 }]);
      } finally {
        await copy.close();
      }
      expect(await again.query('SELECT count(*) AS n FROM t')).toEqual([{ n: 1 }]);
    } finally {
      await again.close();
    }
  });

  it('loads the extensions it is given', async () => {
    const db = await openPglite({ extensions: { pg_trgm } });
    try {
      await db.exec('CREATE EXTENSION pg_trgm');
      expect(await db.query("SELECT similarity('vaultline', 'vaultlime') > 0.5 AS close")).toEqual([
        { close: true },
      ]);
    } finally {
      await db.close();
    }
  });
});
