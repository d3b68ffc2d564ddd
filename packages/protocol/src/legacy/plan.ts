/**
 * Planning of calls: turns an operation and its input into the requests to send — the path
 * filled with encoded segments, the key in the query or in a header, long id lists split so that
 * each URL stays within the limit and each call within the server's id limit (and the row's batch
 * size), writes refused before sending when their URL is too long — and how their answers merge
 * into one.
 *
 * @module
 */

import type { KeyTransport } from '../capabilities.ts';
import { REDACTED, VaultError } from '../errors.ts';
import type { PreparedRequest } from './attempt.ts';
import {
  type EndpointDefinition,
  type EndpointName,
  endpoints,
  type FileUpload,
  fillPath,
} from './endpoints.ts';
import type { EncodeContext } from './segments.ts';

/** What {@link createCallPlanner} needs. */
export interface PlannerSettings {
  /** The API root, e.g. `https://vault.example.com/api/index.php`. */
  apiRoot: string;
  /** The API key. */
  apiKey: string;
  /** The longest URL sent, in bytes. */
  maxUrlLength: number;
  /** How segments are encoded (folder values). */
  context: EncodeContext;
  /** The request headers without the key. */
  headers: Readonly<Record<string, string>>;
}

/** The requests of one call and how their answers merge. */
export interface CallPlan {
  /** The requests, to send in order; at least one. */
  requests: PreparedRequest[];
  /** The multipart body (add/file). */
  body: FormData | undefined;
  /**
   * Merges the answers, one per request: concatenated record lists (restricted to the records
   * the row keeps), or the first answer.
   */
  merge(results: unknown[]): unknown;
}

/** Plans the calls of a client. */
export interface CallPlanner {
  /**
   * Prepares one request.
   *
   * @param definition The row.
   * @param segments The encoded path segments.
   * @param transport How the key travels.
   * @returns The request.
   */
  prepare(
    definition: EndpointDefinition,
    segments: Record<string, string>,
    transport: KeyTransport,
  ): PreparedRequest;
  /**
   * Plans a call.
   *
   * @param name The operation.
   * @param input Its parameters.
   * @param transport How the key travels.
   * @param maxIds The most ids one call may carry (the server's `maxIds` capability); no limit
   *   but the URL's when absent.
   * @returns The requests and the merge.
   * @throws {VaultError} `invalid_request` for input the codec refuses, `too_large` for a URL
   *   above the limit that cannot be split.
   */
  plan(name: EndpointName, input: unknown, transport: KeyTransport, maxIds?: number): CallPlan;
}

const encoder = /* @__PURE__ */ new TextEncoder();

/**
 * The length of a URL in bytes.
 *
 * @param url The URL.
 * @returns Its UTF-8 length.
 */
export function urlLength(url: string): number {
  // Paths are base64, plain ids or percent-encoded, so URLs are ASCII: skip the byte count then.
  return /^[\x20-\x7e]*$/.test(url) ? url.length : encoder.encode(url).length;
}

/**
 * Whether a URL stays within a limit of bytes: at once when even three bytes per UTF-16 unit (the
 * most UTF-8 takes) fit, the common case; else by counting.
 */
function fits(url: string, maxBytes: number): boolean {
  return url.length * 3 <= maxBytes || urlLength(url) <= maxBytes;
}

const first = (results: unknown[]): unknown => results[0];

/**
 * Creates the call planner of a client.
 *
 * @param settings The API root, key, URL limit, encoding and headers.
 * @returns The planner.
 */
export function createCallPlanner(settings: PlannerSettings): CallPlanner {
  const { apiRoot, maxUrlLength, context } = settings;
  const keyQueries: Record<KeyTransport, { query: string; display: string }> = {
    query: { query: `?apikey=${encodeURIComponent(settings.apiKey)}`, display: `?apikey=${REDACTED}` },
    header: { query: '', display: '' },
  };
  const keyHeaders: Record<KeyTransport, Record<string, string>> = {
    query: { ...settings.headers },
    header: { ...settings.headers, authorization: `Bearer ${settings.apiKey}` },
  };

  function prepare(
    definition: EndpointDefinition,
    segments: Record<string, string>,
    transport: KeyTransport,
  ): PreparedRequest {
    const key = keyQueries[transport];
    let displayUrl: string | undefined;
    return {
      url: apiRoot + fillPath(definition.path, segments) + key.query,
      // Made when something reports the request (an event, an error): most calls never do.
      get displayUrl() {
        if (displayUrl === undefined) {
          const display = { ...segments };
          for (const [name, segment] of Object.entries(definition.params))
            if (segment.secret) display[name] = REDACTED;
          displayUrl = apiRoot + fillPath(definition.path, display) + key.display;
        }
        return displayUrl;
      },
      headers: keyHeaders[transport],
    };
  }

  function checked(
    definition: EndpointDefinition,
    request: PreparedRequest,
    name: EndpointName,
  ): PreparedRequest {
    if (fits(request.url, maxUrlLength)) return request;
    const length = urlLength(request.url);
    if (length > maxUrlLength) {
      throw new VaultError(
        'too_large',
        `${definition.operation}: the request URL would be ${length} bytes, above the limit of ${maxUrlLength}.`,
        { endpoint: name, url: request.displayUrl },
      );
    }
    return request;
  }

  function plan(name: EndpointName, input: unknown, transport: KeyTransport, maxIds?: number): CallPlan {
    const definition: EndpointDefinition = endpoints[name];
    if (definition.multipart) {
      return {
        requests: [checked(definition, prepare(definition, {}, transport), name)],
        body: toFormData(input as FileUpload),
        merge: first,
      };
    }
    const values = input as Record<string, unknown>;
    const segments: Record<string, string> = {};
    for (const [param, segment] of Object.entries(definition.params)) {
      if (definition.batch?.param === param) continue;
      segments[param] = segment.encode(values[param], context);
    }
    if (!definition.batch) {
      return {
        requests: [checked(definition, prepare(definition, segments, transport), name)],
        body: undefined,
        merge: first,
      };
    }

    const batchParam = definition.batch.param;
    const ids = values[batchParam] as readonly number[];
    const keep = definition.keep;
    const restrict = (records: unknown): unknown => {
      if (!keep || !Array.isArray(records)) return records;
      const wanted = new Set(values[keep.param] as readonly number[]);
      return records.filter((record: Record<string, unknown>) => wanted.has(record[keep.field] as number));
    };
    const idSegment = definition.params[batchParam]!;
    const whole = idSegment.encode(ids, context);
    const single = prepare(definition, { ...segments, [batchParam]: whole }, transport);
    // The row's own batch size (delete/folder: four) and the server's id limit, whichever is smaller.
    const size = Math.min(
      definition.batch.size ?? Number.POSITIVE_INFINITY,
      maxIds ?? Number.POSITIVE_INFINITY,
    );
    if (ids.length <= size && fits(single.url, maxUrlLength)) {
      // The common case: one call, prepared and measured once.
      return { requests: [single], body: undefined, merge: (results) => restrict(results[0]) };
    }
    const chunks = chunkIds(
      whole.split(';'),
      size,
      (chunk) =>
        urlLength(prepare(definition, { ...segments, [batchParam]: chunk.join(';') }, transport).url),
      maxUrlLength,
    );
    if (chunks === undefined) {
      throw new VaultError(
        'too_large',
        `${definition.operation}: one id alone makes the URL longer than ${maxUrlLength} bytes.`,
        { endpoint: name },
      );
    }
    return {
      requests: chunks.map((chunk) =>
        checked(
          definition,
          prepare(definition, { ...segments, [batchParam]: chunk.join(';') }, transport),
          name,
        ),
      ),
      body: undefined,
      merge: (results) =>
        definition.schema && results.every(Array.isArray) ? restrict(results.flat()) : results[0],
    };
  }

  return { prepare, plan };
}

/**
 * Groups encoded ids so each call stays within the size and URL limits.
 *
 * @param ids The encoded ids.
 * @param size The most ids per call.
 * @param measure The URL length of a call with these ids.
 * @param maxUrlLength The longest URL allowed.
 * @returns The groups, or `undefined` when one id alone is too long.
 */
export function chunkIds(
  ids: string[],
  size: number,
  measure: (chunk: string[]) => number,
  maxUrlLength: number,
): string[][] | undefined {
  const chunks: string[][] = [];
  let current: string[] = [];
  const base = measure([]);
  let length = base;
  for (const id of ids) {
    const added = id.length + (current.length > 0 ? 1 : 0);
    if (current.length > 0 && (current.length >= size || length + added > maxUrlLength)) {
      chunks.push(current);
      current = [];
      length = base;
    }
    length += id.length + (current.length > 0 ? 1 : 0);
    if (length > maxUrlLength) return undefined;
    current.push(id);
  }
  if (current.length > 0) chunks.push(current);
  return chunks;
}

function toFormData(upload: FileUpload): FormData {
  const form = new FormData();
  form.set('item_id', String(upload.itemId));
  const blob =
    upload.file instanceof Blob
      ? upload.file
      : new Blob([upload.file as Uint8Array<ArrayBuffer>], {
          type: upload.contentType ?? 'application/octet-stream',
        });
  form.set('file', blob, upload.fileName);
  return form;
}
