/**
 * Problem Details (RFC 9457): the `type` of an `application/problem+json` body, which the RateLimit
 * draft (draft-ietf-httpapi-ratelimit-headers) uses to say why a request was refused — its quota is
 * spent, the server runs at reduced capacity, or it saw abnormal usage. Reading the body is the
 * attempt sequence's step (at most `discardBodyMaxBytes` of a failed answer); these functions only
 * look at what it read, and never throw on what a server sends.
 */

// `application/problem+json`, any case, then parameters or nothing (RFC 9110 §8.3.1).
const PROBLEM_JSON = /^[\t ]*application\/problem\+json[\t ]*(?:;|$)/i;

/** Whether a `content-type` value is `application/problem+json` (with any parameters). */
export const isProblemJson = (contentType: string | null | undefined): boolean =>
  contentType != null && PROBLEM_JSON.test(contentType);

/**
 * The `type` member of a problem details body, as written (a URI reference; relative ones are not
 * resolved: the types this is for are absolute), or `undefined` when there is none: the body is
 * longer than `maxBytes` (read in part, it cannot be parsed), is not JSON, not an object, or its
 * `type` is not a non-empty string. Bytes are read as UTF-8, a byte order mark dropped; a string
 * is measured in code units (at most its length in bytes).
 */
export const problemType = (body: string | Uint8Array, maxBytes: number): string | undefined => {
  let text: string;
  if (typeof body === 'string') {
    if (body.length > maxBytes) return undefined;
    text = body.charCodeAt(0) === 0xfeff ? body.slice(1) : body;
  } else {
    if (body.byteLength > maxBytes) return undefined;
    text = new TextDecoder().decode(body);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return undefined;
  const type = (parsed as { type?: unknown }).type;
  return typeof type === 'string' && type !== '' ? type : undefined;
};
