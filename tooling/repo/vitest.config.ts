import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts'],
    restoreMocks: true,
    clearMocks: true,
    testTimeout: 30_000,
  },
});
