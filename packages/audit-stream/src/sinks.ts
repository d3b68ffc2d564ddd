import type { SinkSpec } from './types.ts';

/** The sink list of `VAULTLINE_AUDIT_SINKS` could not be read. */
export class AuditSinkConfigError extends Error {
  override readonly name = 'AuditSinkConfigError';
  readonly code = 'invalid_request';
}

const EXPECTED =
  'expected stdout, syslog+tcp://host:port, syslog+udp://host:port, syslog+tls://host:port or an http(s):// URL';

/**
 * Reads a comma-separated sink list (`stdout,syslog+tls://siem:6514,https://collector/audit`).
 * Errors name the entry by position and scheme, never by its text (a URL may hold credentials).
 *
 * @param text The list; empty for none.
 * @param name The variable it came from, for the error.
 * @returns The sinks.
 * @throws {AuditSinkConfigError} For an entry that is no sink.
 */
export function parseSinks(text: string, name = 'VAULTLINE_AUDIT_SINKS'): SinkSpec[] {
  const entries = text
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
  return entries.map((entry, index): SinkSpec => {
    const where = `${name} entry ${index + 1}`;
    if (entry === 'stdout') return { kind: 'stdout' };
    let url: URL;
    try {
      url = new URL(entry);
    } catch {
      throw new AuditSinkConfigError(`${where} is not a sink: ${EXPECTED}.`);
    }
    if (url.protocol === 'http:' || url.protocol === 'https:') return { kind: 'http', url };
    const syslog = /^syslog\+(tcp|udp|tls):$/.exec(url.protocol);
    if (!syslog) {
      throw new AuditSinkConfigError(
        `${where} has the scheme ${JSON.stringify(url.protocol.slice(0, 20))}: ${EXPECTED}.`,
      );
    }
    if (url.hostname === '' || url.port === '' || (url.pathname !== '' && url.pathname !== '/')) {
      throw new AuditSinkConfigError(`${where} must be ${url.protocol}//host:port, with a port and no path.`);
    }
    return {
      kind: 'syslog',
      transport: syslog[1] as 'tcp' | 'udp' | 'tls',
      host: url.hostname.replace(/^\[(.*)\]$/, '$1'),
      port: Number(url.port),
    };
  });
}

/**
 * A sink as logs and `/readyz` show it: no user, password, query or fragment.
 *
 * @param sink The sink.
 * @returns Its name.
 */
export function sinkName(sink: SinkSpec): string {
  switch (sink.kind) {
    case 'stdout':
      return 'stdout';
    case 'syslog':
      return `syslog+${sink.transport}://${sink.host.includes(':') ? `[${sink.host}]` : sink.host}:${sink.port}`;
    case 'http':
      return `${sink.url.protocol}//${sink.url.host}${sink.url.pathname}`;
  }
}
