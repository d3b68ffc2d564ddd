import { describe, expect, it } from 'vitest';
import { createLogger, withoutPayload } from './logger.ts';

function capture() {
  const lines: string[] = [];
  return { lines, destination: { write: (line: string) => void lines.push(line) } };
}

describe('createLogger', () => {
  it('never writes a payload Bolt or the Socket Mode client quote at debug level', () => {
    const { lines, destination } = capture();
    const { bolt } = createLogger('debug', [], destination);
    const payload = JSON.stringify({
      envelope_id: 'e1',
      payload: {
        view: { state: { values: { link_password: { value: { value: 'Typed-In-Modal-Pw-9' } } } } },
      },
    });
    bolt.debug(`Received a message on the WebSocket: ${payload}`);
    bolt.debug('ack() call begins (body: {"text":"/vault link alice Typed-In-Command-Pw-7"})');
    bolt.info('Now connected to Slack');
    const all = lines.join('\n');
    expect(all).not.toMatch(/Typed-In-Modal-Pw-9|Typed-In-Command-Pw-7/);
    expect(all).toContain('Received a message on the WebSocket: [payload withheld]');
    expect(all).toContain('Now connected to Slack');
  });

  it('removes the secrets it holds for a while, and session tokens, from every line', () => {
    const { lines, destination } = capture();
    const { log, secrets } = createLogger('info', ['configured-secret-1'], destination);
    secrets.hold('linked:UALICE:v1', ['Alice-Linked-Pw-3', 'alice-linked-key-4']);
    const jwt = 'eyJhbGciOiJIUzI1NiJ9.eyJ1c2VybmFtZSI6ImFsaWNlIn0.c2lnbmF0dXJl';
    log.warn({ err: 'refused Alice-Linked-Pw-3 with alice-linked-key-4', token: jwt }, 'configured-secret-1');
    secrets.release('linked:UALICE:v1');
    log.warn({ err: 'Alice-Linked-Pw-3' }, 'after release');
    const [held, released] = lines;
    expect(held).not.toMatch(/Alice-Linked-Pw-3|alice-linked-key-4|configured-secret-1|eyJhbGci/);
    expect(held).toContain('[REDACTED]');
    // Released: the registry holds nothing for ever (the bot releases what it no longer holds).
    expect(released).toContain('Alice-Linked-Pw-3');
  });
});

describe('withoutPayload', () => {
  it('keeps a line without a payload as it is, and cuts one at its first brace or bracket', () => {
    expect(withoutPayload('Initializing HTTPReceiver')).toBe('Initializing HTTPReceiver');
    expect(withoutPayload('data: [1,2]')).toBe('data: [payload withheld]');
  });
});
