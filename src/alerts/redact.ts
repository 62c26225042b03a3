/**
 * What of a push service's or webhook receiver's answer may be kept and
 * logged (SPEC §16.4). Such an answer may echo the request: a push endpoint
 * (a bearer capability for its device), a webhook URL with its token, a
 * signature. Every URL and every token-like run is replaced by "…", control
 * characters become spaces, and the result is cut to a bounded length.
 */

/** The longest answer text kept (the status line's words included). */
export const MAX_ANSWER_CHARS = 200;
const ELLIPSIS = "…";
/** A URL: a scheme and everything up to the next space or quote. */
const URL_RUN = /\b[a-z][a-z0-9+.-]*:\/\/[^\s"'<>]*/gi;
/** A run that may be a token, a key or an id: 16 or more letters, digits, `-` or `_`. */
const TOKEN_RUN = /[A-Za-z0-9_-]{16,}/g;

/** `text` with every URL and token-like run replaced by "…", on one line, at most `max` characters. */
export function redactAnswer(text: string, max = MAX_ANSWER_CHARS): string {
  const redacted = text
    .replace(/[\u0000-\u001f\u007f-\u009f]+/g, " ")
    .replace(URL_RUN, ELLIPSIS)
    .replace(TOKEN_RUN, ELLIPSIS)
    .replace(/\s+/g, " ")
    .trim();
  return redacted.length > max ? `${redacted.slice(0, max - 1)}${ELLIPSIS}` : redacted;
}
