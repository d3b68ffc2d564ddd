/**
 * The types of the TeamPass 2 replay fake: what it saw, what it stores, the faults a test switches
 * on, and the server a test holds.
 *
 * @module
 */

import type { IncomingMessage } from 'node:http';

/** One request as the server received it: the raw URL, never percent-decoded. */
export interface SeenRequest {
  /** The HTTP method. */
  method: string;
  /** The request target as sent (path and query), never percent-decoded. */
  url: string;
  /** The request headers. */
  headers: IncomingMessage['headers'];
  /** The whole request body. */
  body: Buffer;
  /** When it arrived (performance.now()). */
  at: number;
}

/** An item as the replay server stores it (all values text, like TeamPass). */
export interface StoredItem {
  id: string;
  label: string;
  description: string;
  login: string;
  email: string;
  url: string;
  pw: string;
  folder_id: string;
  tags: string;
  anyone_can_modify: string;
  deleted?: boolean;
}

/** A folder of the replay server. */
export interface StoredFolder {
  id: string;
  title: string;
  parent_id: string;
  complexity: string;
  renewal: string;
  personal: string;
}

/** A user: the folders they can reach and with which right. */
export interface StoredUser {
  /** Folder id → access_type. An empty map stands for a user without roles (TP answers SQL text). */
  rights: Record<string, string>;
}

/** A stored attachment. */
export interface StoredFile {
  id: string;
  itemId: string;
  name: string;
  type: string;
  bytes: Buffer;
}

/** A canned answer that overrides the emulation. */
export interface Reply {
  status?: number;
  body?: string | Buffer;
  headers?: Record<string, string>;
  /** Wait this long before sending the headers. */
  delayMs?: number;
  /** Send the headers and this much of the body, then stall forever. */
  stallAfterBytes?: number;
  /** Stream this many bytes of JSON-ish filler (for huge bodies), without Content-Length. */
  streamBytes?: number;
  /** Destroy the socket without answering: a network error. */
  destroy?: boolean;
}

/**
 * A fault: when `match` holds, answer `reply`; `times` limits how often. Without `match`, every
 * request but the client's keyless server identification (`/info/version`), so that a client on
 * `keyTransport: 'auto'` meets the fault on the call the test makes.
 */
export interface Fault {
  match?: (request: SeenRequest) => boolean;
  reply: Reply | ((request: SeenRequest) => Reply);
  times?: number;
}

/** The replay server and what it saw. */
export interface ReplayServer {
  /** The base URL, e.g. `http://127.0.0.1:40123`. */
  readonly url: string;
  /** The valid API key. */
  readonly apiKey: string;
  /** Every API request received, in order (identification requests are in `identifications`). */
  readonly requests: SeenRequest[];
  /** The keyless identification requests (`/info/version`) received, in order. */
  readonly identifications: SeenRequest[];
  /** Stored items by id. */
  readonly items: Map<string, StoredItem>;
  /** Stored folders by id. */
  readonly folders: Map<string, StoredFolder>;
  /** Users by login. */
  readonly users: Map<string, StoredUser>;
  /** Stored attachments by id. */
  readonly files: Map<string, StoredFile>;
  /** Answer the next matching requests with a canned reply. */
  fault(fault: Fault): void;
  /** How delete answers success: TeamPass's JSON, or the spec's bare text. */
  deleteBody: 'json' | 'text';
  /** How the collections that TeamPass sends as arrays are sent (to test the other shape). */
  collectionShape: 'teampass' | 'objects' | 'arrays';
  /**
   * Whether add/file, read/listfiles and read/files exist (the fork) or answer `{"err":"No
   * results"}` whatever they are given (every TeamPass release). Default true.
   */
  fileEndpoints: boolean;
  /**
   * TeamPass's default install: 3-byte `utf8` tables. A character outside the BMP (emoji) in a
   * label, description, login, email, URL or folder title then makes the write answer HTTP 200
   * with MySQL's error text, not JSON, and nothing is stored. Default false (4-byte tables).
   */
  threeByteTables: boolean;
  /** Store each character outside the BMP as `????` (what some TeamPass installs do). Default false. */
  mangleFourByte: boolean;
  /** Forget the requests seen and the faults. */
  reset(): void;
  /** Stops listening and drops open connections. */
  close(): Promise<void>;
}

/** Options of {@link startReplayServer}. */
export interface ReplayOptions {
  /** The one API key it accepts (TeamPass 2 has no users' keys). */
  apiKey: string;
  /** When true, the API answers "API access not allowed." to everything. */
  apiDisabled?: boolean;
}
