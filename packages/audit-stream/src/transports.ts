/**
 * One transport per kind of sink. Each delivers a batch or throws; the queue in stream.ts retries.
 * Every attempt is bounded by a timeout, so a sink that accepts and never answers is a failure.
 *
 * @module
 */

import { createSocket, type Socket as UdpSocket } from 'node:dgram';
import { type ClientRequest, request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP, connect as netConnect, type Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import { formatSyslog, octetCounted, type SyslogOrigin } from './syslog.ts';
import { PermanentSinkError, type SinkSpec, type Transport } from './types.ts';

/** What every transport needs. */
export interface TransportOptions {
  readonly origin: SyslogOrigin;
  /** Bearer token for HTTP sinks. */
  readonly token: string | undefined;
  /** Extra CA certificates (PEM) trusted for TLS syslog and HTTPS. */
  readonly ca: string | undefined;
  /** The longest one attempt may take, in ms. */
  readonly timeoutMs: number;
  /** Where `stdout` writes. */
  readonly stdout: { write(chunk: string): unknown };
}

function timeoutError(what: string, ms: number): Error {
  return new Error(`${what} took longer than ${ms} ms`);
}

/** Runs `start` with a deadline: on time out, `abort` tears the attempt down. */
function withDeadline<T>(ms: number, what: string, abort: () => void, start: Promise<T>): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => {
      abort();
      reject(timeoutError(what, ms));
    }, ms);
    timer.unref();
    start.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}

function stdoutTransport(options: TransportOptions): Transport {
  return {
    async deliver(events) {
      options.stdout.write(events.map((event) => `${JSON.stringify(event)}\n`).join(''));
    },
    close() {},
  };
}

/** TCP and TLS: one connection kept open, octet-counted frames, reconnected after any failure. */
function streamTransport(spec: Extract<SinkSpec, { kind: 'syslog' }>, options: TransportOptions): Transport {
  let socket: Socket | undefined;
  const drop = () => {
    socket?.destroy();
    socket = undefined;
  };
  const open = (): Promise<Socket> => {
    const fresh =
      spec.transport === 'tls'
        ? tlsConnect({
            host: spec.host,
            port: spec.port,
            ...(isIP(spec.host) === 0 ? { servername: spec.host } : {}),
            ...(options.ca === undefined ? {} : { ca: [options.ca] }),
          })
        : netConnect({ host: spec.host, port: spec.port });
    const ready = new Promise<Socket>((resolve, reject) => {
      fresh.once(spec.transport === 'tls' ? 'secureConnect' : 'connect', () => resolve(fresh));
      fresh.once('error', reject);
    });
    // Later failures (a reset, the receiver gone) make the next batch open a new connection.
    fresh.on('error', () => {});
    fresh.once('close', () => {
      if (socket === fresh) socket = undefined;
    });
    // Syslog receivers send nothing back; reading keeps the socket from stalling if one does.
    fresh.resume();
    return withDeadline(options.timeoutMs, 'connecting', () => fresh.destroy(), ready);
  };
  return {
    async deliver(events) {
      socket ??= await open();
      const current = socket;
      const frames = Buffer.concat(events.map((event) => octetCounted(formatSyslog(event, options.origin))));
      try {
        await withDeadline(
          options.timeoutMs,
          'sending',
          () => current.destroy(),
          new Promise<void>((resolve, reject) =>
            current.write(frames, (error) => (error ? reject(error) : resolve())),
          ),
        );
      } catch (error) {
        if (socket === current) drop();
        throw error;
      }
    },
    close: drop,
  };
}

/** UDP: one datagram per message (RFC 5426); nothing says whether it arrived. */
function udpTransport(spec: Extract<SinkSpec, { kind: 'syslog' }>, options: TransportOptions): Transport {
  let socket: UdpSocket | undefined;
  return {
    async deliver(events) {
      socket ??= createSocket(isIP(spec.host) === 6 ? 'udp6' : 'udp4').unref();
      const current = socket;
      for (const event of events) {
        const message = Buffer.from(formatSyslog(event, options.origin), 'utf8');
        await new Promise<void>((resolve, reject) =>
          current.send(message, spec.port, spec.host, (error) => (error ? reject(error) : resolve())),
        );
      }
    },
    close() {
      socket?.close();
      socket = undefined;
    },
  };
}

/** HTTP(S): one POST per batch, a JSON array; 2xx delivered, 408, 429 and 5xx retried. */
function httpTransport(spec: Extract<SinkSpec, { kind: 'http' }>, options: TransportOptions): Transport {
  const send = spec.url.protocol === 'https:' ? httpsRequest : httpRequest;
  const inFlight = new Set<ClientRequest>();
  return {
    deliver(events) {
      const body = Buffer.from(JSON.stringify(events), 'utf8');
      return new Promise<void>((resolve, reject) => {
        const request = send(
          spec.url,
          {
            method: 'POST',
            headers: {
              'content-type': 'application/json',
              'content-length': body.length,
              ...(options.token === undefined ? {} : { authorization: `Bearer ${options.token}` }),
            },
            ...(options.ca === undefined ? {} : { ca: [options.ca] }),
            signal: AbortSignal.timeout(options.timeoutMs),
          },
          (response) => {
            response.resume();
            response.once('end', () => {
              const status = response.statusCode ?? 0;
              if (status >= 200 && status < 300) resolve();
              else if (status === 408 || status === 429 || status >= 500)
                reject(new Error(`the collector answered HTTP ${status}`));
              else reject(new PermanentSinkError(`the collector refused the batch: HTTP ${status}`));
            });
            response.once('error', reject);
          },
        );
        inFlight.add(request);
        request.once('close', () => inFlight.delete(request));
        request.once('error', (error) =>
          reject(error.name === 'AbortError' ? timeoutError('sending', options.timeoutMs) : error),
        );
        request.end(body);
      });
    },
    close() {
      for (const request of inFlight) request.destroy();
    },
  };
}

/**
 * The transport of a sink.
 *
 * @param spec The sink.
 * @param options What transports need.
 * @returns The transport.
 */
export function createTransport(spec: SinkSpec, options: TransportOptions): Transport {
  switch (spec.kind) {
    case 'stdout':
      return stdoutTransport(options);
    case 'http':
      return httpTransport(spec, options);
    case 'syslog':
      return spec.transport === 'udp' ? udpTransport(spec, options) : streamTransport(spec, options);
  }
}
