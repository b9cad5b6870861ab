/**
 * kyRetry's refusals of a ky option set again after it, in both wordings: development builds say
 * what to write instead; production and browser builds (`messages/short.ts`) name the option only.
 * Which one a build resolves is the package's `#messages` import, by condition.
 */
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';
import * as full from '../src/messages/full.ts';
import * as short from '../src/messages/short.ts';

/** Each refusal in both wordings. */
const WORDINGS = [
  [full.retrySetText, short.retrySetText],
  [full.limitSetText, short.limitSetText],
  [full.fetchSetText, short.fetchSetText],
] as const;

describe("kyRetry's refusal messages", () => {
  it('the short wording names the ky option, without the fix', () => {
    expect(short.retrySetText).toBe('jitterbug: ky\'s "retry" option was set after kyRetry()');
    expect(short.limitSetText).toBe('jitterbug: ky\'s "retry" limit was set after kyRetry()');
    expect(short.fetchSetText).toBe('jitterbug: ky\'s "fetch" option was set after kyRetry()');
  });

  it('the full wording begins as the short one and adds the fix', () => {
    for (const [long, brief] of WORDINGS) {
      expect(long.startsWith(brief)).toBe(true);
      expect(long.length).toBeGreaterThan(brief.length);
    }
  });

  const src = fileURLToPath(new URL('../src', import.meta.url));
  /** The wording file `#messages` resolves to in a bundle made for `platform` with `conditions`. */
  const wordingFile = async (
    platform: 'browser' | 'node',
    conditions: string[],
  ): Promise<string | undefined> => {
    const { metafile } = await build({
      ...{ stdin: { contents: "export * from '#messages';", resolveDir: src }, metafile: true },
      ...{ bundle: true, write: false, platform, conditions: ['@jitterbug/source', ...conditions] },
      logLevel: 'silent',
    });
    return Object.keys(metafile.inputs).find((input) => input.includes('messages/'));
  };

  it.each([
    ['node', [], 'full'],
    ['node', ['development'], 'full'],
    ['node', ['production'], 'short'],
    ['browser', ['development'], 'full'],
    ['browser', [], 'short'],
    ['browser', ['production'], 'short'],
  ] as const)('%s %j: messages/%s.ts', async (platform, conditions, wording) => {
    expect(await wordingFile(platform, [...conditions])).toMatch(
      new RegExp(`ky/src/messages/${wording}\\.ts$`),
    );
  });
});
