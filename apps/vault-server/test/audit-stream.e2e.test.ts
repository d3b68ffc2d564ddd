import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SD_ID } from '@vaultline/audit-stream';
import {
  type ReceivedSyslog,
  type Receiver,
  selfSignedCertificate,
  startHangingSink,
  startHttpCollector,
  startSyslogReceiver,
} from '@vaultline/audit-stream/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestVault, type TestVault } from '../src/testing.ts';
import { clientOf, expectVaultError, rawRequest } from './support/helpers.ts';

const SINK_TOKEN = `sink-token-${crypto.randomUUID()}`;
const PASSWORD = `audit-stream-secret-${crypto.randomUUID()}`;
const WRONG_KEY = `wrong-key-${crypto.randomUUID()}`;

describe('the audit stream', () => {
  let dir: string;
  let vault: TestVault;
  let syslog: Receiver<ReceivedSyslog>[];
  let http: Awaited<ReturnType<typeof startHttpCollector>>;
  let userKey: string;
  let itemId: number;
  const logLines: string[] = [];

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'vaultline-audit-stream-'));
    const { cert, key } = await selfSignedCertificate();
    await writeFile(join(dir, 'ca.pem'), cert);
    syslog = [
      await startSyslogReceiver({ transport: 'tcp' }),
      await startSyslogReceiver({ transport: 'udp' }),
      await startSyslogReceiver({ transport: 'tls', cert, key }),
    ];
    http = await startHttpCollector();
    vault = await startTestVault({
      auditSinks: [...syslog.map((receiver) => receiver.url), http.url].join(','),
      auditSinkToken: SINK_TOKEN,
      auditSinkCa: join(dir, 'ca.pem'),
      logLines,
    });
    const folder = await clientOf(vault).addFolder({ folder: { title: 'Ops' } });
    itemId = (
      await clientOf(vault).addItem({ item: { label: 'db', password: PASSWORD, folderId: folder.id } })
    ).id;
    await vault.admin.createUser({ login: 'alice' });
    await vault.admin.createRole({ name: 'ops' });
    await vault.admin.assignRole('alice', 'ops');
    await vault.admin.grant('ops', folder.id, 'R');
    userKey = await vault.admin.createKey({ label: 'pipeline-7', login: 'alice' });
  });
  afterAll(async () => {
    await vault?.close();
    await Promise.all([...(syslog ?? []), http].map((receiver) => receiver?.close()));
    await rm(dir, { recursive: true, force: true });
  });

  it('sends every audited read, write and refusal to every sink: who, what, outcome, address, time; never a secret', async () => {
    expect((await clientOf(vault, userKey).getItem(itemId)).password).toBe(PASSWORD);
    await expectVaultError(clientOf(vault, userKey).getItem(999_999), 'not_found');
    expect(
      (
        await rawRequest(vault.url, '/api/index.php/read/items/1', {
          headers: { authorization: `Bearer ${WRONG_KEY}` },
        })
      ).status,
    ).toBe(401);

    const expected = [
      { action: 'add/item', actor: 'admin', target: `item ${itemId}`, outcome: 'ok' },
      {
        action: 'read/items',
        actor: 'alice',
        keyLabel: 'pipeline-7',
        target: `items ${itemId}`,
        outcome: 'ok',
      },
      { action: 'read/items', actor: 'alice', keyLabel: 'pipeline-7', target: 'items 999999', outcome: 'ok' },
      { action: 'auth/failed', actor: 'unknown', keyLabel: '', outcome: 'unauthorized' },
    ];
    for (const receiver of syslog) {
      for (const event of expected) {
        const message = await receiver.waitFor((m) =>
          Object.entries(event).every(([name, value]) => m.data[SD_ID]?.[name] === value),
        );
        expect(message).toMatchObject({ facility: 13, appName: 'vaultline-server', msgId: event.action });
        expect(message.data[SD_ID]).toMatchObject({ address: '127.0.0.1', app: 'vault-server' });
        expect(message.timestamp).toBe(JSON.parse(message.message).time);
        expect(JSON.parse(message.message)).toMatchObject(event);
      }
      expect(receiver.errors).toEqual([]);
    }
    for (const event of expected) {
      const batch = await http.waitFor((b) =>
        b.events.some((e) => Object.entries(event).every(([name, value]) => e[name] === value)),
      );
      expect(batch.headers.authorization).toBe(`Bearer ${SINK_TOKEN}`);
    }
    const readEvent = http.received.flatMap((b) => b.events).find((e) => e.keyLabel === 'pipeline-7');
    expect(readEvent).toMatchObject({
      address: '127.0.0.1',
      time: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    });

    for (const receiver of [...syslog, http]) {
      const bytes = receiver.bytes().toString('utf8');
      for (const secret of [PASSWORD, vault.adminKey, userKey, WRONG_KEY, SINK_TOKEN]) {
        expect(bytes.includes(secret), `${receiver.url} received a secret`).toBe(false);
      }
    }
    const readyz = JSON.parse((await rawRequest(vault.url, '/readyz')).body);
    expect(readyz).toMatchObject({ status: 'ready', audit: { dropped: 0 } });
    expect(readyz.audit.sinks).toHaveLength(4);
  });
});

describe('the audit stream with a sink that hangs', () => {
  it('answers every request, drops what its queue cannot hold, and says so in /readyz and the log', async () => {
    const hanging = await startHangingSink();
    const logLines: string[] = [];
    const vault = await startTestVault({ auditSinks: hanging.httpUrl, auditQueueSize: 3, logLines });
    try {
      const folder = await clientOf(vault).addFolder({ folder: { title: 'Ops' } });
      const { id } = await clientOf(vault).addItem({
        item: { label: 'db', password: PASSWORD, folderId: folder.id },
      });
      await hanging.waitForConnections(1);
      // add/folder and add/item fill the queue of 3 with the first read; the 5 reads after it are dropped.
      for (let n = 0; n < 6; n++) expect((await clientOf(vault).getItem(id)).password).toBe(PASSWORD);
      const readyz = JSON.parse((await rawRequest(vault.url, '/readyz')).body);
      expect(readyz).toMatchObject({ status: 'ready', audit: { queued: 3, dropped: 5 } });
      expect(readyz.audit.sinks).toEqual([{ sink: hanging.httpUrl, queued: 3, delivered: 0, dropped: 5 }]);
      expect(logLines.some((line) => line.includes('audit events dropped: the queue is full'))).toBe(true);
    } finally {
      await vault.close();
      await hanging.close();
    }
  });
});
