import { defaultServerConditions } from 'vite';
import { defineConfig } from 'vitest/config';

// Tests import every package's TypeScript source through the `@jitterbug/source` export condition,
// so no build step runs before tests. Vitest needs it under ssr.resolve (resolve.conditions alone
// does not reach Node-side resolution).
export default defineConfig({
  ssr: { resolve: { conditions: ['@jitterbug/source', ...defaultServerConditions] } },
  test: {
    include: [
      'packages/*/test/**/*.test.ts',
      'test/**/*.test.ts',
      'examples/**/*.test.ts',
      'bench/**/*.test.ts',
    ],
    reporters: ['default', './scripts/summary-reporter.ts'],
    testTimeout: 20_000,
    hookTimeout: 20_000,
  },
});
