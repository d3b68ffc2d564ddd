import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    restoreMocks: true,
    clearMocks: true,
    testTimeout: 20_000,
    coverage: {
      provider: 'v8',
      include: ['src/**/*.ts'],
      // The conformance suite runs against a live server (its own CI step), not in unit tests.
      exclude: ['src/**/*.test.ts', 'src/conformance.ts', 'src/conformance-cli.ts'],
      reporter: ['text-summary', 'text'],
      thresholds: { lines: 90 },
    },
  },
});
