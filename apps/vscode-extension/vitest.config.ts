import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

// Unit tests of the pure modules, next to them (`src/**/*.test.ts`): milliseconds, in plain Node.
// What they import of `vscode` is a small stand-in (`test/unit/vscode.ts`); everything that needs
// the real editor is tested in a real VS Code (test/suite, `pnpm test`).
export default defineConfig({
  resolve: {
    alias: { vscode: fileURLToPath(new URL('./test/unit/vscode.ts', import.meta.url)) },
  },
  test: {
    include: ['src/**/*.test.ts'],
    restoreMocks: true,
  },
});
