import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    restoreMocks: true,
    clearMocks: true,
    testTimeout: 20_000,
    hookTimeout: 60_000,
    // The suites start real servers; in one process they share the two cores more fairly.
    fileParallelism: false,
  },
});
