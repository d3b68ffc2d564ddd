import { describe, expect, it } from 'vitest';
import { configFromEnv } from './config.ts';

describe('configuration of keys, CORS and TLS', () => {
  it('has safe defaults', () => {
    const config = configFromEnv({}, undefined);
    expect(config).toMatchObject({
      queryKeys: 'accept',
      corsOrigins: [],
      tlsCert: undefined,
      tlsKey: undefined,
      allowPlainHttp: false,
      auditSinks: [],
      auditQueueSize: 10_000,
    });
  });

  it('reads the audit sinks, their token and CA file', () => {
    const config = configFromEnv(
      {
        VAULTLINE_AUDIT_SINKS: 'stdout, syslog+tls://siem.example.com:6514',
        VAULTLINE_AUDIT_SINK_TOKEN: 'collector-token',
        VAULTLINE_AUDIT_SINK_CA: '/etc/vault/siem-ca.pem',
        VAULTLINE_AUDIT_QUEUE_SIZE: '500',
      },
      undefined,
    );
    expect(config).toMatchObject({
      auditSinks: [
        { kind: 'stdout' },
        { kind: 'syslog', transport: 'tls', host: 'siem.example.com', port: 6514 },
      ],
      auditSinkToken: 'collector-token',
      auditSinkCa: '/etc/vault/siem-ca.pem',
      auditQueueSize: 500,
    });
  });

  it('reads the settings', () => {
    const config = configFromEnv(
      {
        VAULTLINE_QUERY_KEYS: 'Refuse',
        VAULTLINE_CORS_ORIGINS: 'https://vscode.dev, http://localhost:8080',
        VAULTLINE_TLS_CERT: '/etc/vault/cert.pem',
        VAULTLINE_TLS_KEY: '/etc/vault/key.pem',
        VAULTLINE_ALLOW_PLAIN_HTTP: '1',
      },
      undefined,
    );
    expect(config).toMatchObject({
      queryKeys: 'refuse',
      corsOrigins: ['https://vscode.dev', 'http://localhost:8080'],
      tlsCert: '/etc/vault/cert.pem',
      tlsKey: '/etc/vault/key.pem',
      allowPlainHttp: true,
    });
  });

  it.each([
    [{ VAULTLINE_QUERY_KEYS: 'maybe' }, /VAULTLINE_QUERY_KEYS must be accept or refuse/],
    [{ VAULTLINE_CORS_ORIGINS: 'https://vscode.dev/' }, /VAULTLINE_CORS_ORIGINS expects origins/],
    [{ VAULTLINE_CORS_ORIGINS: 'vscode.dev' }, /VAULTLINE_CORS_ORIGINS expects origins/],
    [{ VAULTLINE_CORS_ORIGINS: '*' }, /VAULTLINE_CORS_ORIGINS expects origins/],
    [{ VAULTLINE_TLS_CERT: '/etc/vault/cert.pem' }, /both VAULTLINE_TLS_CERT and VAULTLINE_TLS_KEY/],
    [{ VAULTLINE_TLS_KEY: '/etc/vault/key.pem' }, /both VAULTLINE_TLS_CERT and VAULTLINE_TLS_KEY/],
    [{ VAULTLINE_ALLOW_PLAIN_HTTP: 'yes' }, /VAULTLINE_ALLOW_PLAIN_HTTP must be 1 or 0/],
    [{ VAULTLINE_AUDIT_SINKS: 'stdout,syslog://siem:514' }, /VAULTLINE_AUDIT_SINKS entry 2 has the scheme/],
    [
      { VAULTLINE_AUDIT_SINKS: 'syslog+udp://siem' },
      /VAULTLINE_AUDIT_SINKS entry 1 must be syslog\+udp:\/\/host:port/,
    ],
  ])('refuses %o with a clear error', (env, message) => {
    expect(() => configFromEnv(env, undefined)).toThrow(message);
  });
});
