/** How each client ends a body that ran past the length its response declared (see the driver's `overlongBodyDeclared`). */
import { ResumeError } from '@jitterbug/core';

const chain = (error: unknown): unknown[] => {
  const errors: unknown[] = [];
  for (let e = error, depth = 0; typeof e === 'object' && e !== null && depth < 5; depth++) {
    errors.push(e);
    e = (e as { cause?: unknown }).cause;
  }
  return errors;
};

const PAST = /ran past the (\d+) bytes declared/;

/** The fetch engine reads the body itself: a `ResumeError` saying so, on the error's cause chain. */
export const resumeErrorDeclared = (error: unknown): number | undefined => {
  const found = chain(error).find((e): e is ResumeError => e instanceof ResumeError);
  const match = found && PAST.exec(found.message);
  return match ? Number(match[1]) : undefined;
};

/** undici frames the body: its length-mismatch error, having received more than declared. */
export const lengthMismatchDeclared = (error: unknown): number | undefined => {
  const found = chain(error).find(
    (e) => (e as { code?: unknown }).code === 'UND_ERR_RES_CONTENT_LENGTH_MISMATCH',
  ) as { declared?: unknown; received?: unknown } | undefined;
  const { declared, received } = found ?? {};
  return typeof declared === 'number' && typeof received === 'number' && received > declared
    ? declared
    : undefined;
};
