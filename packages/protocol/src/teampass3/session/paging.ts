/**
 * Many calls of a TeamPass 3 session: one per input a few at a time, and paged reads to the end
 * (in parallel when the server sends a total, else until a short page), with a cap they report.
 *
 * @see ../README.md
 * @module
 */

import type {
  TeamPass3EndpointName,
  TeamPass3Input,
  TeamPass3Output,
  TeamPass3PagedName,
} from '../endpoints.ts';
import { teampass3Endpoints } from '../endpoints.ts';
import type { SessionSend } from './send.ts';
import type {
  TeamPass3Page,
  TeamPass3PagedInput,
  TeamPass3ReadAllOptions,
  TeamPass3Record,
} from './types.ts';

/** Runs `work` for indexes 0…count-1, at most `width` at a time; the first failure rejects. */
async function inPool(count: number, width: number, work: (index: number) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < count) await work(next++);
  };
  await Promise.all(Array.from({ length: Math.max(0, Math.min(width, count)) }, worker));
}

/**
 * Calls an operation once per input, a few at a time.
 *
 * @returns The answers, in input order.
 */
export async function callEach<K extends TeamPass3EndpointName>(
  send: SessionSend,
  name: K,
  inputs: readonly TeamPass3Input<K>[],
  width: number,
  signal: AbortSignal | undefined,
): Promise<TeamPass3Output<K>[]> {
  const results: TeamPass3Output<K>[] = [];
  await inPool(inputs.length, Math.max(1, width), async (index) => {
    results[index] = (await send(name, inputs[index]!, signal)).data;
  });
  return results;
}

function idOf(record: unknown): number | undefined {
  if (typeof record !== 'object' || record === null || !('id' in record)) return undefined;
  return typeof record.id === 'number' ? record.id : undefined;
}

/** The records of every page, each id once, in the server's order. */
function distinct<T>(pages: readonly T[][]): T[] {
  const seen = new Set<number>();
  const items: T[] = [];
  for (const record of pages.flat()) {
    const id = idOf(record);
    if (id !== undefined) {
      if (seen.has(id)) continue;
      seen.add(id);
    }
    items.push(record);
  }
  return items;
}

/** The session's paging settings. */
export interface PagingLimits {
  readonly maxItems: number;
  readonly pageSize: number;
  readonly concurrency: number;
}

/**
 * Reads a paged operation to the end, or to the cap.
 *
 * @returns The records, the total and whether the cap cut them.
 */
export async function readAll<K extends TeamPass3PagedName>(
  send: SessionSend,
  limits: PagingLimits,
  name: K,
  input: TeamPass3PagedInput<K>,
  readOptions: TeamPass3ReadAllOptions,
): Promise<TeamPass3Page<K>> {
  const cap = readOptions.maxItems ?? limits.maxItems;
  const maxLimit = teampass3Endpoints[name].pagination.maxLimit;
  const size = Math.max(1, Math.min(limits.pageSize, maxLimit ?? limits.pageSize, cap));
  const pageAt = (offset: number) =>
    send(name, { ...input, limit: size, offset } as TeamPass3Input<K>, readOptions.signal);
  const first = await pageAt(0);
  const pages: TeamPass3Record<K>[][] = [first.data];
  let total = first.total;
  if (total !== undefined) {
    const offsets: number[] = [];
    for (let offset = size; offset < Math.min(total, cap); offset += size) offsets.push(offset);
    const results: TeamPass3Record<K>[][] = [];
    await inPool(offsets.length, limits.concurrency, async (index) => {
      const page = await pageAt(offsets[index]!);
      results[index] = page.data;
      total = page.total ?? total;
    });
    pages.push(...results);
  } else {
    // No total: read until a short page.
    let last = first.data;
    let offset = size;
    while (last.length >= size && offset < cap) {
      last = (await pageAt(offset)).data;
      pages.push(last);
      offset += size;
    }
  }
  const items = distinct(pages);
  const truncated = total !== undefined ? total > cap : items.length > cap;
  return { items: items.slice(0, cap), total, truncated };
}

/**
 * Reads a paged operation one page at a time, as the caller iterates: each id once, to the end
 * (the total, or a short page) or to the cap.
 *
 * @returns The pages' records.
 */
export async function* readPages<K extends TeamPass3PagedName>(
  send: SessionSend,
  limits: PagingLimits,
  name: K,
  input: TeamPass3PagedInput<K>,
  readOptions: TeamPass3ReadAllOptions,
): AsyncGenerator<TeamPass3Record<K>[]> {
  const cap = readOptions.maxItems ?? limits.maxItems;
  const maxLimit = teampass3Endpoints[name].pagination.maxLimit;
  const size = Math.max(1, Math.min(limits.pageSize, maxLimit ?? limits.pageSize, cap));
  const seen = new Set<number>();
  let kept = 0;
  for (let offset = 0; offset < cap; offset += size) {
    const page = await send(name, { ...input, limit: size, offset } as TeamPass3Input<K>, readOptions.signal);
    const fresh = page.data.filter((record) => {
      const id = idOf(record);
      if (id === undefined) return true;
      if (seen.has(id)) return false;
      seen.add(id);
      return true;
    });
    const records = fresh.slice(0, cap - kept);
    kept += records.length;
    if (records.length > 0) yield records;
    const end = page.total !== undefined ? offset + size >= page.total : page.data.length < size;
    if (end) return;
  }
}
