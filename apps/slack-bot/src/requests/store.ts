import { randomUUID } from 'node:crypto';
import type { Database } from '@vaultline/store';

/** Where an access request stands. `closed`: approved, and its grant has run out. */
export type RequestStatus = 'pending' | 'approved' | 'denied' | 'expired' | 'closed';

/** A message the bot posted about a request (to an approver or the approvals channel). */
export interface PostedMessage {
  channel: string;
  ts: string;
}

/** A request for a one-time reveal of an item the requester may not read. Never holds a value. */
export interface AccessRequest {
  id: string;
  requester: string;
  requesterTeam: string | undefined;
  requesterLogin: string;
  /** What the requester typed: all they ever learn of the item is their own words. */
  typed: string;
  reason: string;
  /** The item, when what was typed names exactly one. */
  itemId: number | undefined;
  itemLabel: string | undefined;
  folderId: number | undefined;
  /** The approvers the request was sent to (the clicker is checked again at click time). */
  approvers: string[];
  status: RequestStatus;
  createdAt: number;
  expiresAt: number;
  decidedBy: string | undefined;
  decidedAt: number | undefined;
  grantExpiresAt: number | undefined;
  revealsLeft: number;
  messages: PostedMessage[];
}

interface Row {
  id: string;
  requester: string;
  requester_team: string | null;
  requester_login: string;
  typed: string;
  reason: string;
  item_id: number | string | null;
  item_label: string | null;
  folder_id: number | string | null;
  approvers: string[] | string;
  status: RequestStatus;
  created_at: number | string;
  expires_at: number | string;
  decided_by: string | null;
  decided_at: number | string | null;
  grant_expires_at: number | string | null;
  reveals_left: number;
  messages: PostedMessage[] | string;
}

const json = <T>(value: T | string): T => (typeof value === 'string' ? (JSON.parse(value) as T) : value);
const num = (value: number | string | null): number | undefined =>
  value === null ? undefined : Number(value);

function fromRow(row: Row): AccessRequest {
  return {
    id: row.id,
    requester: row.requester,
    requesterTeam: row.requester_team ?? undefined,
    requesterLogin: row.requester_login,
    typed: row.typed,
    reason: row.reason,
    itemId: num(row.item_id),
    itemLabel: row.item_label ?? undefined,
    folderId: num(row.folder_id),
    approvers: json(row.approvers),
    status: row.status,
    createdAt: Number(row.created_at),
    expiresAt: Number(row.expires_at),
    decidedBy: row.decided_by ?? undefined,
    decidedAt: num(row.decided_at),
    grantExpiresAt: num(row.grant_expires_at),
    revealsLeft: row.reveals_left,
    messages: json(row.messages),
  };
}

/** What a new request is made of. */
export interface NewRequest {
  requester: string;
  requesterTeam: string | undefined;
  requesterLogin: string;
  typed: string;
  reason: string;
  item: { id: number; label: string; folderId: number } | undefined;
  approvers: string[];
  /** What makes two requests the same: one pending request per requester and key. */
  dedupeKey: string;
}

/** What {@link AccessRequests.create} did: made the request, or found the same one pending. */
export type Created = { created: true; request: AccessRequest } | { created: false; request: AccessRequest };

/** The access requests, in the store every instance shares. Every change is one atomic statement. */
export interface AccessRequests {
  /**
   * Makes a request, unless the requester has one pending with the same key: then that one is
   * given back (one atomic statement, whichever instance runs it).
   */
  create(request: NewRequest, expiresInMs: number): Promise<Created>;
  get(id: string): Promise<AccessRequest | undefined>;
  setMessages(id: string, messages: PostedMessage[]): Promise<void>;
  /**
   * Decides a pending, unexpired request. Only the first decision counts, whichever instance makes it.
   *
   * @returns The decided request, or undefined when it was no longer pending (or had expired).
   */
  decide(
    id: string,
    decidedBy: string,
    approve: boolean,
    grant: { ms: number; reveals: number },
  ): Promise<AccessRequest | undefined>;
  /**
   * Finds an approved, unexpired grant of this item to this user with a reveal left, spending
   * nothing: a reveal is spent by {@link AccessRequests.spendGrant} once the value was read.
   *
   * @returns The request that granted it, or undefined when there is none.
   */
  findGrant(requester: string, itemId: number): Promise<AccessRequest | undefined>;
  /**
   * Takes one reveal from a grant, if it still has one and is still approved and unexpired (one
   * atomic statement: of concurrent clicks on the last reveal, one gets it).
   *
   * @returns The grant after the reveal was taken, or undefined when none was left.
   */
  spendGrant(id: string): Promise<AccessRequest | undefined>;
  /** Marks pending requests past their time `expired`, and grants past theirs `closed`. */
  expireDue(): Promise<{ expired: AccessRequest[]; closed: AccessRequest[] }>;
  /**
   * Marks one pending request past its time `expired`.
   *
   * @returns The request, or undefined when it was not pending and due (another instance took it).
   */
  expire(id: string): Promise<AccessRequest | undefined>;
  /** A user's pending requests, newest first. */
  pendingOf(requester: string): Promise<AccessRequest[]>;
}

/**
 * Creates the access requests over the store.
 *
 * @param db The store.
 * @param now The clock.
 * @returns They.
 */
export function createAccessRequests(db: Database, now: () => number = Date.now): AccessRequests {
  return {
    async create(request, expiresInMs) {
      const at = now();
      const rows = await db.query<Row>(
        `INSERT INTO access_requests (id, requester, requester_team, requester_login, typed, reason,
           item_id, item_label, folder_id, approvers, status, created_at, expires_at, dedupe_key)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, 'pending', $11, $12, $13)
         ON CONFLICT (requester, dedupe_key) WHERE status = 'pending' DO NOTHING
         RETURNING *`,
        [
          randomUUID(),
          request.requester,
          request.requesterTeam ?? null,
          request.requesterLogin,
          request.typed,
          request.reason,
          request.item?.id ?? null,
          request.item?.label ?? null,
          request.item?.folderId ?? null,
          JSON.stringify(request.approvers),
          at,
          at + expiresInMs,
          request.dedupeKey,
        ],
      );
      if (rows[0]) return { created: true, request: fromRow(rows[0]) };
      const pending = await db.query<Row>(
        `SELECT * FROM access_requests WHERE requester = $1 AND dedupe_key = $2 AND status = 'pending'`,
        [request.requester, request.dedupeKey],
      );
      // Decided between the two statements: try once more.
      if (!pending[0]) return this.create(request, expiresInMs);
      return { created: false, request: fromRow(pending[0]) };
    },
    async get(id) {
      if (!/^[0-9a-f-]{36}$/.test(id)) return undefined;
      const rows = await db.query<Row>('SELECT * FROM access_requests WHERE id = $1', [id]);
      return rows[0] ? fromRow(rows[0]) : undefined;
    },
    async setMessages(id, messages) {
      await db.query('UPDATE access_requests SET messages = $2 WHERE id = $1', [
        id,
        JSON.stringify(messages),
      ]);
    },
    async decide(id, decidedBy, approve, grant) {
      const at = now();
      const rows = await db.query<Row>(
        `UPDATE access_requests
         SET status = $3, decided_by = $4, decided_at = $5, grant_expires_at = $6, reveals_left = $7
         WHERE id = $1 AND status = 'pending' AND expires_at > $2 RETURNING *`,
        [
          id,
          at,
          approve ? 'approved' : 'denied',
          decidedBy,
          at,
          approve ? at + grant.ms : null,
          approve ? grant.reveals : 0,
        ],
      );
      return rows[0] ? fromRow(rows[0]) : undefined;
    },
    async findGrant(requester, itemId) {
      const rows = await db.query<Row>(
        `SELECT * FROM access_requests
         WHERE requester = $1 AND item_id = $2 AND status = 'approved'
           AND grant_expires_at > $3 AND reveals_left > 0
         ORDER BY grant_expires_at LIMIT 1`,
        [requester, itemId, now()],
      );
      return rows[0] ? fromRow(rows[0]) : undefined;
    },
    async spendGrant(id) {
      const rows = await db.query<Row>(
        `UPDATE access_requests SET reveals_left = reveals_left - 1
         WHERE id = $1 AND status = 'approved' AND grant_expires_at > $2 AND reveals_left > 0
         RETURNING *`,
        [id, now()],
      );
      return rows[0] ? fromRow(rows[0]) : undefined;
    },
    async expireDue() {
      const at = now();
      const expired = await db.query<Row>(
        `UPDATE access_requests SET status = 'expired' WHERE status = 'pending' AND expires_at <= $1 RETURNING *`,
        [at],
      );
      const closed = await db.query<Row>(
        `UPDATE access_requests SET status = 'closed'
         WHERE status = 'approved' AND (grant_expires_at <= $1 OR reveals_left <= 0) RETURNING *`,
        [at],
      );
      return { expired: expired.map(fromRow), closed: closed.map(fromRow) };
    },
    async expire(id) {
      const rows = await db.query<Row>(
        `UPDATE access_requests SET status = 'expired'
         WHERE id = $1 AND status = 'pending' AND expires_at <= $2 RETURNING *`,
        [id, now()],
      );
      return rows[0] ? fromRow(rows[0]) : undefined;
    },
    async pendingOf(requester) {
      const rows = await db.query<Row>(
        `SELECT * FROM access_requests WHERE requester = $1 AND status = 'pending' AND expires_at > $2
         ORDER BY created_at DESC LIMIT 20`,
        [requester, now()],
      );
      return rows.map(fromRow);
    },
  };
}
