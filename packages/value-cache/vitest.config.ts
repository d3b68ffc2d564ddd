import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts'],
    // What no test reaches is a disk that refuses the write (a directory others may use, a full disk).
    coverage: { provider: 'v8', include: ['src/value-cache.ts'], thresholds: { lines: 90 } },
  },
});
