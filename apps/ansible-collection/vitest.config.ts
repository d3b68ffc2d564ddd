import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    restoreMocks: true,
    clearMocks: true,
    // Each test runs ansible-playbook (Python start-up, a fork per task) against a real server.
    testTimeout: 180_000,
    hookTimeout: 120_000,
    fileParallelism: false,
  },
});
