import type { webApi } from '@slack/bolt';
import { createAuditStream, parseSinks } from '@vaultline/audit-stream';
import { startHttpCollector } from '@vaultline/audit-stream/testing';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { createAuditLog } from './audit.ts';
import { ConfigError, readConfig } from './env.ts';

const base = {
  SLACK_BOT_TOKEN: 'xoxb-1',
  SLACK_SIGNING_SECRET: 'secret-value-1',
  VAULT_URL: 'http://127.0.0.1:8080',
  VAULT_API_KEY: 'key-value-1',
  IDENTITY_MAP_FILE: '/etc/map.csv',
};

describe('the audit stream of the bot', () => {
  it('reads VAULTLINE_AUDIT_SINKS, and refuses a bad entry by position', () => {
    expect(readConfig(base).auditSinks).toEqual([]);
    expect(
      readConfig({ ...base, VAULTLINE_AUDIT_SINKS: 'stdout,syslog+tls://siem:6514' }).auditSinks,
    ).toEqual([{ kind: 'stdout' }, { kind: 'syslog', transport: 'tls', host: 'siem', port: 6514 }]);
    expect(() => readConfig({ ...base, VAULTLINE_AUDIT_SINKS: 'stdout,ftp://u:p@x' })).toThrow(ConfigError);
    expect(() => readConfig({ ...base, VAULTLINE_AUDIT_SINKS: 'stdout,ftp://u:p@x' })).toThrow(
      /VAULTLINE_AUDIT_SINKS entry 2/,
    );
  });

  it('sends every record to the sinks too, with every field of the record', async () => {
    const collector = await startHttpCollector();
    const stream = createAuditStream({
      sinks: parseSinks(collector.url),
      appName: 'vaultline-slack-bot',
      token: 'sink-token',
      logger: pino({ level: 'silent' }),
    });
    const lines: string[] = [];
    const audit = createAuditLog({
      file: undefined,
      channel: undefined,
      client: () => ({}) as webApi.WebClient,
      logger: pino({ level: 'info' }, { write: (line: string) => lines.push(line) }),
      now: () => new Date('2026-12-07T12:00:00.000Z'),
      stream,
    });
    try {
      await audit.record({
        event: 'reveal',
        slackUser: 'U1',
        slackTeam: 'T1',
        login: 'alice',
        channel: 'C1',
        itemId: 54,
        label: 'prod db',
        outcome: 'shown',
      });
      const batch = await collector.waitFor(() => true);
      expect(batch.headers.authorization).toBe('Bearer sink-token');
      expect(batch.events).toEqual([
        {
          time: '2026-12-07T12:00:00.000Z',
          audit: true,
          app: 'slack-bot',
          event: 'reveal',
          slackUser: 'U1',
          slackTeam: 'T1',
          login: 'alice',
          channel: 'C1',
          itemId: 54,
          label: 'prod db',
          outcome: 'shown',
        },
      ]);
    } finally {
      await audit.flush(0);
      await collector.close();
    }
  });
});
