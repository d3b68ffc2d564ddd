import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts'],
    // Every line of the format and of the readers of the old ones is run by a test; the files
    // of ./node also hold fallbacks for file systems this machine does not have (no hard links,
    // Windows), hence their lower bar.
    coverage: {
      provider: 'v8',
      include: ['src/**/*.ts'],
      exclude: ['src/**/*.test.ts'],
      thresholds: { lines: 85, 'src/*.ts': { lines: 95 } },
    },
  },
});
