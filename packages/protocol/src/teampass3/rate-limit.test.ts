import { describe, expect, it } from 'vitest';
import { paceBelowTeamPass3, TEAMPASS3_CALLS_PER_MINUTE, teamPass3MinuteEstimate } from './rate-limit.ts';

describe("TeamPass 3's rate limit", () => {
  it('weights the previous minute by what is left of the current one', () => {
    expect(teamPass3MinuteEstimate(100, 10, 0)).toBe(110);
    expect(teamPass3MinuteEstimate(100, 10, 45_000)).toBe(35);
    expect(teamPass3MinuteEstimate(100, 10, 60_000)).toBe(10);
  });

  it('paces with a bucket whose burst and minute together stay at the limit', () => {
    for (const limit of [2, 3, 99, 100, TEAMPASS3_CALLS_PER_MINUTE, 1_000_001]) {
      const pace = paceBelowTeamPass3(limit);
      expect(pace.burst + pace.perMinute).toBe(limit);
      expect(pace.burst).toBeGreaterThanOrEqual(pace.perMinute);
      expect(pace.perMinute).toBeGreaterThanOrEqual(1);
    }
  });
});
