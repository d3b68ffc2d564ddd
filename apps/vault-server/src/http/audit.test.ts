import { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateMasterKey } from '../crypto/master-key.ts';
import { invalid } from '../errors.ts';
import { createLogger } from '../logger.ts';
import { operatorActor } from '../store/actor.ts';
import { type AuditWriter, createAuditWriter } from '../store/audit-writer.ts';
import { openVault, type Vault } from '../vault.ts';

const OPERATOR = operatorActor('test', 'test');

import type { AppEnv } from './app-env.ts';
import { auditOperation } from './audit.ts';
import { INTERNAL_ERROR, toApiError } from './error-mapping.ts';

describe('auditOperation', () => {
  let vault: Vault;
  let audit: AuditWriter;

  beforeAll(async () => {
    vault = await openVault({
      dataDir: undefined,
      databaseUrl: undefined,
      masterKey: generateMasterKey(),
      cacheTtlMs: 0,
      createMasterKey: true,
    });
    audit = createAuditWriter(vault.db, createLogger('silent', { write: () => {} }));
  });

  afterAll(async () => {
    await audit?.flush();
    await vault?.close();
  });

  function appFor(definition: { operation: string; access: 'read' | 'write'; secret: boolean }) {
    const app = new Hono<AppEnv>();
    app.onError((error, c) => {
      const mapped = toApiError(error) ?? INTERNAL_ERROR;
      return c.json(mapped.body, mapped.status as 400);
    });
    app.use('*', async (c, next) => {
      c.set('address', '192.0.2.7');
      c.set('principal', { kind: 'user', keyLabel: 'audit-key', userId: 1, login: 'alice' });
      await next();
    });
    app.get('/ok/:target', auditOperation(definition, audit), (c) => {
      c.set('auditTarget', `item ${c.req.param('target')}`);
      return c.text('ok');
    });
    app.get('/fail', auditOperation(definition, audit), () => {
      throw invalid('Bad input.');
    });
    return app;
  }

  const records = async (action: string) => {
    await audit.flush();
    return (await vault.adminAs(OPERATOR).listAudit({ limit: 50, action })).map((entry) => ({
      actor: entry.actor,
      keyLabel: entry.keyLabel,
      target: entry.target,
      address: entry.address,
      outcome: entry.outcome,
    }));
  };

  it('records a secret read and its failure, with who, from where and the target', async () => {
    const app = appFor({ operation: 'test/secret-read', access: 'read', secret: true });
    expect((await app.request('/ok/7')).status).toBe(200);
    expect((await app.request('/fail')).status).toBe(400);
    expect(await records('test/secret-read')).toEqual([
      { actor: 'alice', keyLabel: 'audit-key', target: '', address: '192.0.2.7', outcome: 'invalid_request' },
      { actor: 'alice', keyLabel: 'audit-key', target: 'item 7', address: '192.0.2.7', outcome: 'ok' },
    ]);
  });

  it('leaves a successful write to the store, records a failed one, and nothing for a plain read', async () => {
    const writes = appFor({ operation: 'test/write', access: 'write', secret: false });
    // A successful write is audited by the store, in the write's own transaction, with its actor.
    expect((await writes.request('/ok/8')).status).toBe(200);
    expect(await records('test/write')).toEqual([]);
    expect((await writes.request('/fail')).status).toBe(400);
    expect((await records('test/write')).map((entry) => entry.outcome)).toEqual(['invalid_request']);
    const reads = appFor({ operation: 'test/plain-read', access: 'read', secret: false });
    expect((await reads.request('/ok/9')).status).toBe(200);
    expect((await reads.request('/fail')).status).toBe(400);
    expect(await records('test/plain-read')).toEqual([]);
  });
});
