/**
 * The legacy API's part of the one transport (`transport/transport.ts`): sends a prepared request
 * of an operation of the endpoint table and reads the answer as the legacy API means it
 * (`internal/response.ts`: `{"err":…}` bodies whatever the status, the server's words; attachments
 * as bytes). Retries, limits, 429 waits and request events are the transport's.
 *
 * @module
 */

import type { CallOptions } from '../client/types.ts';
import { errorAnswer, excerptOf, interpretJson, type ResponseOrigin } from '../internal/response.ts';
import { type Answer, createTransport, type TransportSettings } from '../transport/transport.ts';
import { type DownloadedFile, type EndpointDefinition, type EndpointName, endpoints } from './endpoints.ts';

/** A request ready to send: its URL, the same URL redacted for reports, and its headers. */
export interface PreparedRequest {
  /** The URL sent. */
  url: string;
  /** The URL with the key and secret segments replaced by `[REDACTED]`. */
  displayUrl: string;
  /** The request headers (the key's, when it travels in a header). */
  headers: Record<string, string>;
}

/** What {@link createSender} needs: the transport's settings. */
export type SenderSettings = TransportSettings;

/**
 * Sends one prepared request of an operation (with its retries) and reads the answer.
 *
 * @returns The parsed answer.
 * @throws {VaultError} For every error answer and failure.
 */
export type Sender = (
  name: EndpointName,
  request: PreparedRequest,
  body: FormData | undefined,
  callOptions: CallOptions | undefined,
) => Promise<unknown>;

const utf8Decoder = /* @__PURE__ */ new TextDecoder();

/**
 * Creates the sender of a legacy client.
 *
 * @param settings Fetch, limits and reporting.
 * @returns The sender.
 */
export function createSender(settings: SenderSettings): Sender {
  const transport = createTransport(settings);
  const redact = settings.redact;

  return function send(name, request, body, callOptions) {
    const definition: EndpointDefinition = endpoints[name];
    // The redacted URL is read only when something reports the request (an event, an error).
    return transport.send(
      {
        endpoint: name,
        operation: definition.operation,
        method: definition.method,
        url: request.url,
        get displayUrl() {
          return request.displayUrl;
        },
        headers: request.headers,
        body,
        read: definition.access === 'read',
        signal: callOptions?.signal,
      },
      {
        read: (answer) =>
          readAnswer(answer, {
            endpoint: name,
            definition,
            get url() {
              return request.displayUrl;
            },
            redact,
          }),
      },
    );
  };
}

/** Reads an answer of the legacy API: JSON (`internal/response.ts`), or an attachment's bytes. */
function readAnswer(answer: Answer, origin: ResponseOrigin): unknown {
  const { status, bytes } = answer;
  if (origin.definition.response !== 'binary')
    return interpretJson(status, utf8Decoder.decode(bytes), origin);
  const contentType = answer.headers.get('content-type') ?? '';
  // An attachment may itself be JSON: only an error-shaped JSON body is an error answer.
  if (status < 400 && !(/json/i.test(contentType) && isErrorBody(bytes))) {
    return {
      bytes,
      contentType,
      fileName: fileNameOf(answer.headers.get('content-disposition')),
    } satisfies DownloadedFile;
  }
  const text = utf8Decoder.decode(bytes);
  interpretJson(status, text, origin);
  throw errorAnswer(
    status,
    `expected file data, received ${excerptOf(text, origin.redact)}`,
    undefined,
    origin,
  );
}

/** Tells whether a JSON body is an error answer (`{"err":…}` or `{"status":"error"}`). */
function isErrorBody(bytes: Uint8Array): boolean {
  try {
    const data: unknown = JSON.parse(utf8Decoder.decode(bytes));
    if (typeof data !== 'object' || data === null || Array.isArray(data)) return false;
    return 'err' in data || (data as { status?: unknown }).status === 'error';
  } catch {
    return false;
  }
}

function fileNameOf(disposition: string | null): string | undefined {
  if (!disposition) return undefined;
  const star = /filename\*\s*=\s*UTF-8''([^;]+)/i.exec(disposition);
  if (star?.[1]) {
    try {
      return decodeURIComponent(star[1]);
    } catch {
      // fall through to the plain form
    }
  }
  const plain = /filename\s*=\s*"?([^";]+)"?/i.exec(disposition);
  return plain?.[1];
}
