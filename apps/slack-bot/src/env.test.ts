import { describe, expect, it } from 'vitest';
import { ConfigError, readConfig } from './env.ts';

const base = {
  SLACK_BOT_TOKEN: 'xoxb-1',
  SLACK_SIGNING_SECRET: 'secret-value-1',
  VAULT_URL: 'http://127.0.0.1:8080',
  VAULT_API_KEY: 'key-value-1',
  IDENTITY_MAP_FILE: '/etc/map.csv',
};

function problemsOf(env: Record<string, string>): string[] {
  try {
    readConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return [...error.problems];
    throw error;
  }
  return [];
}

/** A link key: 32 bytes in base64. */
const KEY = Buffer.alloc(32, 7).toString('base64');

describe('readConfig', () => {
  it('applies the defaults to a minimal HTTP-mode configuration', () => {
    const config = readConfig(base);
    expect(config).toMatchObject({
      mode: 'http',
      port: 3000,
      revealSeconds: 60,
      pageSize: 20,
      identity: { mode: 'map', mapFile: '/etc/map.csv' },
      accessCacheSeconds: 5,
      store: { kind: 'pglite', dataDir: '.data/slack-bot' },
      responseUrlOrigins: ['https://hooks.slack.com'],
      teamIds: undefined,
      appIds: undefined,
      commandLimit: 10,
      commandWindowSeconds: 10,
      approvers: [],
      requestExpirySeconds: 3600,
      grantSeconds: 900,
      grantReveals: 1,
    });
  });

  it('reads the store, allow-lists and approvers', () => {
    const config = readConfig({
      ...base,
      BOT_DATABASE_URL: 'postgres://bot@db/vaultline_bot',
      SLACK_TEAM_IDS: 'T0123, T0456',
      SLACK_APP_IDS: 'A0123',
      APPROVERS: 'U0123 S0456',
      APPROVERS_BY_FOLDER: '12=U0789,U0790; 14=S0999',
      APPROVALS_CHANNEL: 'C0APPROVE',
      IDENTITY_MODE: 'email',
      VAULT_USER_DIRECTORY_FILE: '/etc/users.csv',
      IDENTITY_TEAM_IDS: 'T0123',
      IDENTITY_ALLOW_GUESTS: 'true',
    });
    expect(config.store).toEqual({ kind: 'postgres', url: 'postgres://bot@db/vaultline_bot' });
    expect(config.teamIds).toEqual(['T0123', 'T0456']);
    expect(config.appIds).toEqual(['A0123']);
    expect(config.approvers).toEqual(['U0123', 'S0456']);
    expect([...config.folderApprovers]).toEqual([
      [12, ['U0789', 'U0790']],
      [14, ['S0999']],
    ]);
    expect(config.approvalsChannel).toBe('C0APPROVE');
    expect(config.identity).toEqual({
      mode: 'email',
      directoryFile: '/etc/users.csv',
      teamIds: ['T0123'],
      allowGuests: true,
    });
  });

  it('lists every missing setting at once, by name', () => {
    const problems = problemsOf({});
    expect(problems).toEqual(
      expect.arrayContaining([
        expect.stringContaining('SLACK_BOT_TOKEN is required'),
        expect.stringContaining('VAULT_URL is required'),
        expect.stringContaining('VAULT_API_KEY is required'),
        expect.stringContaining('SLACK_SIGNING_SECRET is required when SLACK_MODE=http'),
        expect.stringContaining('IDENTITY_MAP_FILE is required when IDENTITY_MODE=map'),
      ]),
    );
  });

  it.each([
    [{ SLACK_MODE: 'socket' }, 'SLACK_APP_TOKEN (xapp-…) is required when SLACK_MODE=socket'],
    [{ SLACK_SIGNING_SECRET: '' }, 'SLACK_SIGNING_SECRET is required when SLACK_MODE=http'],
    [{ SLACK_MODE: 'webhook' }, 'SLACK_MODE must be "http" or "socket"'],
    [{ IDENTITY_MODE: 'email' }, 'VAULT_USER_DIRECTORY_FILE is required when IDENTITY_MODE=email'],
    [{ REVEAL_SECONDS: 'soon' }, 'REVEAL_SECONDS must be a whole number'],
    [{ REVEAL_SECONDS: '0' }, 'REVEAL_SECONDS must be at least 1'],
    [{ PAGE_SIZE: '40' }, 'PAGE_SIZE must be at most 23'],
    [{ REVEAL_MODE: 'channel' }, 'REVEAL_MODE must be "ephemeral" or "modal"'],
    [{ VAULT_URL: 'ftp://vault' }, 'VAULT_URL must be http(s)'],
    [{ SLACK_BOT_TOKEN: 'xoxp-user' }, 'SLACK_BOT_TOKEN must start with xoxb-'],
    [{ AUDIT_CHANNEL: '#audit' }, 'AUDIT_CHANNEL must be a channel id'],
    [{ BOT_DATABASE_URL: 'mysql://x' }, 'BOT_DATABASE_URL must be a postgres:// URL'],
    [{ SLACK_RESPONSE_URL_ORIGINS: 'https://hooks.slack.com/x' }, 'must list origins'],
    [{ APPROVERS: 'alice' }, 'APPROVERS must list ids'],
    [{ APPROVERS_BY_FOLDER: 'ops=U0123' }, 'APPROVERS_BY_FOLDER must look like'],
    [{ IDENTITY_ALLOW_GUESTS: 'yes' }, 'IDENTITY_ALLOW_GUESTS must be "true" or "false"'],
    [{ LINK_ENCRYPTION_KEY: 'c2hvcnQ=' }, 'LINK_ENCRYPTION_KEY must be 32 random bytes in base64'],
    [
      { LINK_ENCRYPTION_KEY: KEY, LINK_PREVIOUS_KEYS: `${KEY}, nope` },
      'LINK_PREVIOUS_KEYS must list keys of 32 random bytes',
    ],
    [{ LINK_CREDENTIALS: 'sso' }, 'LINK_CREDENTIALS must be "password", "token" or "both"'],
    [{ LINK_ADMINS: 'alice' }, 'LINK_ADMINS must list ids'],
  ])('refuses %j with a clear message', (change, message) => {
    expect(problemsOf({ ...base, ...change }).join('\n')).toContain(message);
  });

  it('reads the link settings, and needs neither the bot’s key nor an identity file with a link key', () => {
    const previous = Buffer.alloc(32, 9).toString('base64url');
    const config = readConfig({
      SLACK_BOT_TOKEN: 'xoxb-1',
      SLACK_SIGNING_SECRET: 'secret-value-1',
      VAULT_URL: 'http://127.0.0.1:8080',
      LINK_ENCRYPTION_KEY: KEY,
      LINK_PREVIOUS_KEYS: previous,
      LINK_CREDENTIALS: 'both',
      LINK_ADMINS: 'U0123, S0456',
    });
    expect(config.vaultApiKey).toBeUndefined();
    expect(config.link?.key.equals(Buffer.alloc(32, 7))).toBe(true);
    expect(config.link?.previousKeys.map((key) => key.toString('hex'))).toEqual([
      Buffer.alloc(32, 9).toString('hex'),
    ]);
    expect(config.linkCredentials).toBe('both');
    expect(config.linkAdmins).toEqual(['U0123', 'S0456']);
    expect(readConfig(base)).toMatchObject({ link: undefined, linkCredentials: 'password', linkAdmins: [] });
  });

  it('reads the budget of failed sign-ins, the caps per login and per member, and the lock wait', () => {
    expect(readConfig(base)).toMatchObject({
      failedSignInsPerDay: 20,
      failedSignInsPerLogin: 5,
      failedSignInsPerMember: 3,
      signInLockSeconds: 600,
    });
    expect(
      readConfig({
        ...base,
        LINK_FAILED_SIGN_INS_PER_DAY: '4',
        LINK_FAILED_SIGN_INS_PER_LOGIN: '1',
        LINK_FAILED_SIGN_INS_PER_MEMBER: '2',
        VAULT_SIGN_IN_LOCK_SECONDS: '1800',
      }),
    ).toMatchObject({
      failedSignInsPerDay: 4,
      failedSignInsPerLogin: 1,
      failedSignInsPerMember: 2,
      signInLockSeconds: 1800,
    });
    expect(problemsOf({ ...base, LINK_FAILED_SIGN_INS_PER_DAY: '0' }).join('\n')).toContain(
      'LINK_FAILED_SIGN_INS_PER_DAY must be at least 1',
    );
  });

  it('never puts a secret value in its message', () => {
    const problems = problemsOf({
      ...base,
      SLACK_BOT_TOKEN: 'xoxp-secret-user-token',
      VAULT_URL: 'not a url key-value-1',
    });
    expect(problems.join('\n')).not.toContain('xoxp-secret-user-token');
    expect(problems.join('\n')).not.toContain('key-value-1');
    const keyProblems = problemsOf({
      ...base,
      LINK_ENCRYPTION_KEY: 'my-secret-link-key',
      LINK_PREVIOUS_KEYS: 'old-secret-key',
    });
    expect(keyProblems.join('\n')).not.toMatch(/my-secret-link-key|old-secret-key/);
  });
});
