/**
 * The bound on attachment transfers, and the memory they give back.
 *
 * At most `max` add/file and read/files requests of one server move attachment bytes at once. One
 * more is refused at once with 503 and `Retry-After`, before any of its bytes are read or sent: it
 * holds nothing while it waits, and a client (or the protocol client, which retries reads on 503)
 * tries again. A queue would hold the refused uploads' sockets open with their bodies unread, and
 * delay answers by however long the transfers ahead take.
 *
 * A place is held only while bytes move: a transfer that moves no byte for `idleMs` (an upload
 * whose client stopped sending, a download whose client stopped reading), or that moved less than
 * `minRate` bytes per second on average since it started (looked at every `idleMs`; the time the
 * server took to store or read the bytes left out), is stalled: a client reading a little now and
 * then too. It gives its place back and its `onStall` destroys its socket, so that holding the
 * bound full costs a client at least `minRate` per place. One key holds at most `perKey` places
 * (half the bound by default): a single key cannot take every place, stalled or not.
 *
 * Memory: a transfer holds about one chunk at a time, but every chunk leaves garbage behind (the
 * socket's reads, the database driver's buffers and strings, the sealed and opened copies), several
 * times its size, mostly in Buffers. V8 frees a Buffer's memory only when a collection finds it
 * dead: young ones at a young collection, which Buffers hardly trigger (their bytes lie outside
 * V8's heap), older ones at a full collection, which V8 starts for them only 64 MiB above their level
 * after its last one; V8's young generation grows with the strings the drivers make (hex and
 * base64 text of every chunk). Left alone, 8 concurrent 24 MiB transfers took 10–14 MiB each at
 * their peak and kept 9–34% more on the idle server. So while transfers run, every 128 KiB moved
 * (all transfers together), the gate compares the process's Buffer and heap memory with its level
 * before they started: past {@link YOUNG_BUDGET} per running transfer it runs a young collection,
 * past {@link FULL_BUDGET} a full one, at most one of each per {@link YOUNG_GAP_MS} and
 * {@link FULL_GAP_MS} (freed Buffers show only once V8's sweeper ran). When the last transfer ends
 * it runs one full collection that also shrinks V8's heap, so that an idle server gives it back. The
 * collections' cost shows in `pnpm bench` (server CPU per phase); a server without transfers never
 * runs one.
 *
 * @module
 */

import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { TRANSFER_RETRY_AFTER_S } from '../constants.ts';
import { RateLimitedError } from '../errors.ts';

/** A place taken in the gate. */
export interface Transfer {
  /**
   * Counts bytes it moved (read from the client or sent to it), and the time the server took for
   * them (storing or reading them), in ms: the least rate is asked of the client's time only.
   */
  moved(bytes: number, serverMs?: number): void;
  /** Every byte moved (the rest is the server's work): the least rate no longer applies. */
  settled(): void;
  /** Gives the place back (once; more calls do nothing). */
  leave(): void;
}

/** The bound. */
export interface TransferGate {
  /** The most transfers at once. */
  readonly max: number;
  /** The most transfers of one key at once. */
  readonly perKey: number;
  /** Transfers running now. */
  readonly active: number;
  /**
   * Takes a place.
   *
   * @param key Who moves the bytes (the API key's label): it holds at most {@link perKey} places.
   * @param onStall Called once when the transfer moved no byte for the idle bound, or less than the
   *   least rate on average (its place is given back just before): it destroys the transfer's socket.
   * @returns The transfer.
   * @throws {RateLimitedError} 503 with `Retry-After` when every place, or the key's share, is taken.
   */
  enter(key: string, onStall: () => void): Transfer;
}

/** How the bound is set. */
export interface TransferGateOptions {
  /** The most transfers at once. */
  readonly max: number;
  /** The most transfers of one key at once; half of `max` (at least 1) when absent. */
  readonly perKey?: number | undefined;
  /** How long a transfer may move no byte before it is stalled, in ms; how often its rate is looked at. */
  readonly idleMs: number;
  /** The least a transfer moves per second, on average since it started; 0 or absent for none. */
  readonly minRate?: number | undefined;
}

const MiB = 1024 * 1024;
/**
 * How often memory is looked at: every 128 KiB moved, by all transfers together (each KiB moved
 * leaves several behind; looking costs some 20 µs).
 */
const CHECK_EVERY = MiB / 8;
/** Buffer and heap memory per running transfer above which young garbage is collected. */
const YOUNG_BUDGET = MiB;
/** Buffer and heap memory per running transfer above which all garbage is collected. */
const FULL_BUDGET = 2 * MiB;
const YOUNG_GAP_MS = 10;
const FULL_GAP_MS = 50;
/** The full collection after the last transfer: once its answer is on its way. */
const IDLE_DELAY_MS = 200;

/** A collection: young, full, or full as V8 does it when memory runs out (it also shrinks its heap). */
type Kind = 'young' | 'full' | 'shrink';

type Collect = (options: { type: 'major' | 'minor'; flavor?: 'regular' | 'last-resort' }) => void;

let collector: Collect | undefined;

/**
 * Runs a collection. V8's `gc()` exists only with `--expose-gc`: the flag is set for the time it
 * takes to create one context, whose `gc` is kept, then unset (no `gc` appears anywhere else).
 */
function collect(kind: Kind): void {
  if (collector === undefined) {
    setFlagsFromString('--expose-gc');
    collector = runInNewContext('gc') as Collect;
    setFlagsFromString('--no-expose-gc');
  }
  if (kind === 'young') collector({ type: 'minor' });
  else collector({ type: 'major', flavor: kind === 'shrink' ? 'last-resort' : 'regular' });
}

/** Bytes held by Buffers and V8's heap objects, garbage included until a collection finds it. */
const heldBytes = () => {
  const usage = process.memoryUsage();
  return usage.arrayBuffers + usage.heapUsed;
};

/**
 * Creates the bound.
 *
 * @param options The most transfers at once, per key, and the idle bound.
 * @returns The gate.
 */
export function createTransferGate(options: TransferGateOptions): TransferGate {
  const { max, idleMs } = options;
  const minRate = options.minRate ?? 0;
  const perKey = Math.min(max, options.perKey ?? Math.max(1, Math.ceil(max / 2)));
  let active = 0;
  const byKey = new Map<string, number>();
  let sinceCheck = 0;
  let baseline = 0;
  let nextYoung = 0;
  let nextFull = 0;
  let idleTimer: ReturnType<typeof setTimeout> | undefined;
  const check = () => {
    const held = heldBytes() - baseline;
    const now = performance.now();
    if (held > FULL_BUDGET * active && now >= nextFull) {
      nextFull = now + FULL_GAP_MS;
      collect('full');
    } else if (held > YOUNG_BUDGET * active && now >= nextYoung) {
      nextYoung = now + YOUNG_GAP_MS;
      collect('young');
    }
  };
  return {
    max,
    perKey,
    get active() {
      return active;
    },
    enter(key, onStall) {
      if (active >= max) {
        throw new RateLimitedError(
          `The server is moving ${max} attachments already, its most at once; try again in ${TRANSFER_RETRY_AFTER_S} s.`,
          TRANSFER_RETRY_AFTER_S,
          503,
        );
      }
      const ofKey = byKey.get(key) ?? 0;
      if (ofKey >= perKey) {
        throw new RateLimitedError(
          `This key is moving ${perKey} attachments already, its most at once; try again in ${TRANSFER_RETRY_AFTER_S} s.`,
          TRANSFER_RETRY_AFTER_S,
          503,
        );
      }
      clearTimeout(idleTimer);
      if (active === 0) baseline = heldBytes();
      active++;
      byKey.set(key, ofKey + 1);
      let left = false;
      const leave = () => {
        if (left) return;
        left = true;
        clearTimeout(stallTimer);
        clearInterval(rateTimer);
        active--;
        const remaining = (byKey.get(key) ?? 1) - 1;
        if (remaining > 0) byKey.set(key, remaining);
        else byKey.delete(key);
        if (active > 0) return;
        idleTimer = setTimeout(() => collect('shrink'), IDLE_DELAY_MS);
        idleTimer.unref();
      };
      // Refreshed by every byte moved: it fires only after idleMs without one.
      const stallTimer = setTimeout(() => {
        if (left) return;
        leave();
        onStall();
      }, idleMs);
      stallTimer.unref();
      // The least rate, on average since the start, over the client's time: the server's own
      // (storing or reading the bytes) is left out.
      const started = performance.now();
      let total = 0;
      let serverMs = 0;
      let settled = false;
      const rateTimer =
        minRate > 0
          ? setInterval(() => {
              if (left || settled) return;
              if (total < (minRate * (performance.now() - started - serverMs)) / 1000) {
                leave();
                onStall();
              }
            }, idleMs)
          : undefined;
      rateTimer?.unref();
      return {
        moved(bytes, tookMs = 0) {
          if (left) return;
          total += bytes;
          serverMs += tookMs;
          stallTimer.refresh();
          sinceCheck += bytes;
          if (sinceCheck < CHECK_EVERY) return;
          sinceCheck = 0;
          check();
        },
        settled() {
          settled = true;
        },
        leave,
      };
    },
  };
}
