/** The core's side of resuming a broken download: when it may, how to ask, what to accept. */
import { createResume, createRetryPolicy, ResumeError } from '@jitterbug/core';
import { checkResumed, resumeDecision, resumeHeaders, resumeValidator } from '@jitterbug/core/adapter';
import { describe, expect, it } from 'vitest';
import { isResume } from '../src/features/resume.ts';
import { settleOn } from './decisions.ts';
import { decided, fetchFailed, fixed, headers } from './helpers.ts';

describe('resumeValidator', () => {
  it('a strong ETag, else Last-Modified, of a GET answered 200 without a content coding', () => {
    expect(resumeValidator('GET', 200, headers({ etag: '"v1"' }))).toBe('"v1"');
    expect(
      resumeValidator(
        'GET',
        200,
        headers({ etag: 'W/"v1"', 'last-modified': 'Tue, 01 Jan 2026 00:00:00 GMT' }),
      ),
    ).toBe('Tue, 01 Jan 2026 00:00:00 GMT');
    expect(resumeValidator('GET', 200, headers({ etag: '"v1"', 'content-encoding': 'identity' }))).toBe(
      '"v1"',
    );
  });

  it('nothing for a weak ETag alone, a content coding, Accept-Ranges: none, another method or status', () => {
    expect(resumeValidator('GET', 200, headers({ etag: 'W/"v1"' }))).toBeUndefined();
    expect(
      resumeValidator('GET', 200, headers({ etag: '"v1"', 'content-encoding': 'gzip' })),
    ).toBeUndefined();
    expect(resumeValidator('GET', 200, headers({ etag: '"v1"', 'accept-ranges': 'none' }))).toBeUndefined();
    expect(resumeValidator('POST', 200, headers({ etag: '"v1"' }))).toBeUndefined();
    expect(resumeValidator('GET', 206, headers({ etag: '"v1"' }))).toBeUndefined();
    expect(resumeValidator('GET', 200, headers())).toBeUndefined();
  });
});

describe('resumeHeaders and checkResumed', () => {
  it('refuses a rest of another representation, by a bare ETag or a date too, or of another length', () => {
    const rest = (values: Record<string, string>) => headers({ 'content-range': 'bytes 3-4/5', ...values });
    expect(checkResumed(206, rest({ etag: 'erwsd' }), 3, 'asd')?.message).toMatch(/ETag erwsd, was asd/);
    expect(checkResumed(206, rest({ etag: 'asd' }), 3, 'asd')).toBeUndefined();
    const date = 'Tue, 01 Sep 2026 10:00:00 GMT';
    const later = 'Wed, 02 Sep 2026 10:00:00 GMT';
    expect(checkResumed(206, rest({ 'last-modified': later }), 3, date)?.message).toMatch(/Last-Modified/);
    expect(checkResumed(206, rest({ 'last-modified': date, etag: '"any"' }), 3, date)).toBeUndefined();
    expect(checkResumed(206, rest({}), 3, '"v1"', 5)).toBeUndefined();
    expect(checkResumed(206, rest({}), 3, '"v1"', 6)?.message).toMatch(
      /body of 5 bytes, where the first answer declared 6/,
    );
  });

  it('asks for the rest from a byte, if the representation is the same', () => {
    expect(resumeHeaders(1000, '"v1"')).toEqual({ range: 'bytes=1000-', 'if-range': '"v1"' });
  });

  it('accepts only a 206 from that byte to the end, for the same ETag, without a content coding', () => {
    expect(
      checkResumed(206, headers({ 'content-range': 'bytes 1000-1999/2000', etag: '"v1"' }), 1000, '"v1"'),
    ).toBeUndefined();
    expect(
      checkResumed(206, headers({ 'content-range': 'bytes 1000-1999/*' }), 1000, '"v1"'),
    ).toBeUndefined();
    for (const [status, values] of [
      [200, { etag: '"v2"' }],
      [412, {}],
      [206, { 'content-range': 'bytes 0-1999/2000' }],
      [206, {}],
      [206, { 'content-range': 'bytes 1000-1999/2000', etag: '"v2"' }],
      // stops short of the end: the caller's body would end early without an error
      [206, { 'content-range': 'bytes 1000-1499/2000' }],
      // a content coding on the part: its bytes are not those of the body delivered so far
      [206, { 'content-range': 'bytes 1000-1999/2000', 'content-encoding': 'gzip' }],
    ] as const) {
      expect(checkResumed(status, headers(values), 1000, '"v1"')).toBeInstanceOf(ResumeError);
    }
  });
});

describe('resumeDecision', () => {
  const begin = (resume: boolean, maxAttempts = 3) =>
    createRetryPolicy({ random: fixed(0.5), resume: resume && createResume(), maxAttempts }).begin({
      method: 'GET',
      url: 'https://x/file',
    });

  it('reopens the run for a retried error: counted, delayed, reported as resume', () => {
    const run = begin(true);
    decided(settleOn(run, 200)!);
    expect(decided(resumeDecision(run, fetchFailed('ECONNRESET')))).toMatchObject({
      retry: true,
      reason: 'resume',
    });
    expect(run.summary).toBeUndefined();
    decided(settleOn(run, 206)!);
    expect(run.summary).toMatchObject({ attempts: 2, retries: ['resume'], outcome: 'success' });
  });

  it('finishes the run as a failure when it may not resume (no attempts left, an error not retried)', () => {
    const last = begin(true, 1);
    decided(settleOn(last, 200)!);
    expect(decided(resumeDecision(last, fetchFailed('ECONNRESET')))).toMatchObject({
      retry: false,
      reason: 'max-attempts',
    });
    expect(last.summary).toMatchObject({ outcome: 'failure', reason: 'max-attempts' });
    const odd = begin(true);
    decided(settleOn(odd, 200)!);
    expect(decided(resumeDecision(odd, new Error('parse error')))).toMatchObject({
      retry: false,
      reason: 'error-not-retryable',
    });
  });

  it('is refused as an option that is not false or what createResume() returns, naming the factory', () => {
    for (const value of [true, 'yes', {}, { response: () => undefined }]) {
      expect(() => createRetryPolicy({ resume: value as never })).toThrow(
        /option "resume" must be false or what createResume\(\) returns/,
      );
    }
    expect(createRetryPolicy({ resume: false }).options.feature.resume).toBeUndefined();
    expect(isResume(createRetryPolicy({ resume: createResume() }).options.feature.resume)).toBe(true);
  });
});
