import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { createAckFirst } from './ack-first.ts';

async function arrivals(
  gate: ReturnType<typeof createAckFirst>,
  count: number,
  gapMs: number,
): Promise<number> {
  for (let i = 0; i < count; i += 1) {
    gate.mark();
    await sleep(gapMs);
  }
  return performance.now();
}

describe('createAckFirst', () => {
  it('lets work start at once when nothing is arriving', async () => {
    const gate = createAckFirst(500, 5000);
    const started = performance.now();
    await gate.quiet();
    expect(performance.now() - started).toBeLessThan(250);
  });

  it('holds work back until a burst of arrivals pauses', async () => {
    const gate = createAckFirst(150, 5000);
    gate.mark();
    const burst = arrivals(gate, 10, 5);
    await gate.quiet();
    const released = performance.now();
    expect(released).toBeGreaterThanOrEqual(await burst);
  });

  it('never holds work longer than the longest wait', async () => {
    const gate = createAckFirst(50, 60);
    gate.mark();
    const burst = arrivals(gate, 40, 5);
    await gate.quiet();
    const released = performance.now();
    expect(released).toBeLessThan(await burst);
  });

  it('holds work back until every request that arrived has its answer written', async () => {
    const gate = createAckFirst(5, 5000);
    const answered = [gate.open(), gate.open()];
    let released = false;
    const work = gate.quiet().then(() => {
      released = true;
    });
    await sleep(100);
    answered[0]?.();
    await sleep(50);
    expect(released).toBe(false);
    answered[1]?.();
    answered[1]?.();
    await work;
    expect(released).toBe(true);
  });

  it('holds work for an unanswered request no longer than the longest wait', async () => {
    const gate = createAckFirst(5, 100);
    gate.open();
    const started = performance.now();
    await gate.quiet();
    expect(performance.now() - started).toBeGreaterThanOrEqual(95);
    expect(performance.now() - started).toBeLessThan(2000);
  });
});
