import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    restoreMocks: true,
    clearMocks: true,
    // The receivers are real sockets and openssl makes a certificate: slow on a loaded CI machine.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    coverage: {
      provider: 'v8',
      include: ['src/**/*.ts'],
      exclude: ['src/**/*.test.ts', 'src/testing.ts'],
      reporter: ['text-summary', 'text'],
      thresholds: { lines: 85 },
    },
  },
});
