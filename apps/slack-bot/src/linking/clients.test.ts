import type { VaultClient } from '@vaultline/protocol';
import { describe, expect, it } from 'vitest';
import { createSecretRegistry } from '../secret-registry.ts';
import { createLinkedClients, type LinkedSession } from './clients.ts';
import type { LinkedAccount } from './links.ts';

const link = (slackUser: string, version = 'v1'): LinkedAccount => ({
  slackUser,
  slackTeam: 'T1',
  login: slackUser.toLowerCase(),
  method: 'password',
  version,
  linkedAt: 0,
  refusedAt: undefined,
  credentials: {
    kind: 'password',
    login: slackUser.toLowerCase(),
    password: `pw-of-${slackUser}-${version}`,
    apiKey: `key-of-${slackUser}`,
  },
});

function setup(max = 2) {
  let time = 0;
  const made: string[] = [];
  const disposed: { who: string; signOut: boolean | undefined }[] = [];
  const secrets = createSecretRegistry();
  const clients = createLinkedClients({
    make(account) {
      const who = `${account.slackUser}:${account.version}`;
      made.push(who);
      const client = {
        dispose: async (options?: { signOut?: boolean }) => {
          disposed.push({ who, signOut: options?.signOut });
        },
      } as unknown as VaultClient;
      return { client } as LinkedSession;
    },
    secrets,
    max,
    idleMs: 1000,
    onError: () => undefined,
    now: () => time,
  });
  return { clients, made, disposed, secrets, tick: (ms: number) => (time += ms) };
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

describe('createLinkedClients', () => {
  it('keeps one client per person and link, reused by every lease', () => {
    const { clients, made } = setup();
    clients.lease(link('UA')).release();
    clients.lease(link('UA')).release();
    expect(made).toEqual(['UA:v1']);
    clients.lease(link('UA', 'v2')).release();
    expect(made).toEqual(['UA:v1', 'UA:v2']);
    expect(clients.size).toBe(1);
  });

  it('keeps at most `max`, letting the least recently used go without signing out, never one at work', async () => {
    const { clients, disposed } = setup(2);
    const busy = clients.lease(link('UA'));
    clients.lease(link('UB')).release();
    clients.lease(link('UC')).release();
    await settle();
    expect(disposed).toEqual([{ who: 'UB:v1', signOut: false }]);
    expect(clients.size).toBe(2);
    busy.release();
    expect(disposed).toHaveLength(1);
  });

  it('disposes a retired client only once its work is done, and lets idle ones go', async () => {
    const { clients, disposed, tick } = setup(10);
    const busy = clients.lease(link('UA'));
    clients.retire('UA');
    await settle();
    expect(disposed).toEqual([]);
    busy.release();
    await settle();
    expect(disposed.map((entry) => entry.who)).toEqual(['UA:v1']);
    clients.lease(link('UB')).release();
    tick(999);
    clients.sweep();
    expect(clients.size).toBe(1);
    tick(1);
    clients.sweep();
    await settle();
    expect(clients.size).toBe(0);
    expect(disposed.map((entry) => entry.who)).toEqual(['UA:v1', 'UB:v1']);
  });

  it('holds a link’s credentials for the logger’s redaction while its client lives', async () => {
    const { clients, secrets } = setup();
    clients.lease(link('UA')).release();
    expect(secrets.redact('pw-of-UA-v1 key-of-UA')).toBe('[REDACTED] [REDACTED]');
    await clients.close();
    expect(secrets.redact('pw-of-UA-v1')).toBe('pw-of-UA-v1');
  });

  it('lets every client go at close, those at work too', async () => {
    const { clients, disposed } = setup();
    clients.lease(link('UA'));
    clients.lease(link('UB', 'v9')).release();
    await clients.close();
    expect(disposed.map((entry) => entry.who).sort()).toEqual(['UA:v1', 'UB:v9']);
    expect(disposed.every((entry) => entry.signOut === false)).toBe(true);
  });
});
