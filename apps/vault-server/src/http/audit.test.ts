import { describe, expect, it } from 'vitest';
import { memoryVaultForSuite } from '../../test/support/memory-vault.ts';
import { invalid } from '../errors.ts';
import { createLogger } from '../logger.ts';
import { keyActor, operatorActor } from '../store/actor.ts';
import { createAuditWriter } from '../store/audit-writer.ts';
import { auditOperation } from './audit.ts';
import { toApiError } from './error-mapping.ts';

const OPERATOR = operatorActor('test', 'test');
const ALICE = keyActor({ kind: 'user', keyLabel: 'audit-key', userId: 1, login: 'alice' }, '192.0.2.7');

describe('auditOperation', () => {
  const memory = memoryVaultForSuite();

  function runsOf(definition: { operation: string; access: 'read' | 'write'; secret: boolean }) {
    const audited = auditOperation(definition, memory.audit);
    return {
      ok: (target: string) => audited(ALICE, async () => ({ target: `item ${target}`, body: 'ok' })),
      fail: () =>
        audited(ALICE, async () => {
          throw invalid('Bad input.');
        }),
    };
  }

  const records = async (action: string) => {
    await memory.audit.flush();
    return (await memory.vault.adminAs(OPERATOR).listAudit({ limit: 50, action })).map((entry) => ({
      actor: entry.actor,
      keyLabel: entry.keyLabel,
      target: entry.target,
      address: entry.address,
      outcome: entry.outcome,
    }));
  };

  it('records a secret read and its failure, with who, from where and the target', async () => {
    const runs = runsOf({ operation: 'test/secret-read', access: 'read', secret: true });
    expect(await runs.ok('7')).toEqual({ target: 'item 7', body: 'ok' });
    await expect(runs.fail()).rejects.toThrow('Bad input.');
    expect(await records('test/secret-read')).toEqual([
      { actor: 'alice', keyLabel: 'audit-key', target: '', address: '192.0.2.7', outcome: 'invalid_request' },
      { actor: 'alice', keyLabel: 'audit-key', target: 'item 7', address: '192.0.2.7', outcome: 'ok' },
    ]);
  });

  it('leaves a successful write to the store, records a failed one, and nothing for a plain read', async () => {
    const writes = runsOf({ operation: 'test/write', access: 'write', secret: false });
    // A successful write is audited by the store, in the write's own transaction, with its actor.
    await writes.ok('8');
    expect(await records('test/write')).toEqual([]);
    await expect(writes.fail()).rejects.toThrow('Bad input.');
    expect((await records('test/write')).map((entry) => entry.outcome)).toEqual(['invalid_request']);
    const reads = runsOf({ operation: 'test/plain-read', access: 'read', secret: false });
    await reads.ok('9');
    await expect(reads.fail()).rejects.toThrow('Bad input.');
    expect(await records('test/plain-read')).toEqual([]);
  });

  it('records an unexpected failure as a server error', async () => {
    const audited = auditOperation({ operation: 'test/boom', access: 'write', secret: false }, memory.audit);
    await expect(
      audited(ALICE, async () => {
        throw new Error('disk full');
      }),
    ).rejects.toThrow('disk full');
    expect((await records('test/boom')).map((entry) => entry.outcome)).toEqual(['server']);
  });

  it('writes the record of a read served while the database went away once it is back, and refuses reads meanwhile', async () => {
    // The vault's own database, whose connection drops while `down`, as in a PostgreSQL restart.
    let down = false;
    const db = memory.vault.db;
    const flaky = {
      ...db,
      query: ((sql: string, params?: unknown[]) =>
        down
          ? Promise.reject(new Error('Connection terminated unexpectedly'))
          : db.query(sql, params)) as typeof db.query,
    };
    const writer = createAuditWriter(flaky, createLogger('silent', { write: () => {} }));
    const audited = auditOperation({ operation: 'test/outage-read', access: 'read', secret: true }, writer);
    const read = (id: string) => audited(ALICE, async () => ({ target: `item ${id}`, body: 'ok' }));
    // Served just before the restart: its record waits in the batch.
    await read('21');
    down = true;
    await writer.flush();
    expect(writer.failure).toBeDefined();
    // Refused while its record could not be written: 503, as while the database is unreachable.
    const refused = await read('22').catch((error: unknown) => error);
    expect(toApiError(refused)).toMatchObject({
      status: 503,
      headers: { 'retry-after': expect.any(String) },
    });
    down = false;
    await writer.flush();
    expect(writer.failure).toBeUndefined();
    expect((await records('test/outage-read')).map((entry) => entry.target)).toEqual(['item 21']);
    expect((await read('23')).target).toBe('item 23');
  });
});
