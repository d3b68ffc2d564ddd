import { describe, expect, it } from 'vitest';
import { memoryVaultForSuite } from '../../test/support/memory-vault.ts';
import { invalid } from '../errors.ts';
import { keyActor, operatorActor } from '../store/actor.ts';
import { auditOperation } from './audit.ts';

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
});
