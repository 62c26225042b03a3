/**
 * What a webhook format is (SPEC §18): one object per format holds all the
 * hub needs to send a message in it (how the message is rendered, with which
 * method, to which URL, and where the delivery's id goes), so a new format is
 * one module in this folder, listed in index.ts, with its test.
 */
import type { AlertMessage } from "../model.ts";

/** A message as one format puts it: the request's headers and body. */
export interface Rendered {
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

/** A message as the outbox keeps it: its text (the `json` format's body, byte for byte) and what that text says. */
export interface StoredMessage {
  readonly payload: string;
  readonly message: AlertMessage;
}

/** What signing one attempt takes. */
export interface Signing {
  /** The delivery's message id: the same on every attempt, so receivers can drop a duplicate, and never repeated by another delivery. */
  readonly messageId: string;
  readonly timestampSeconds: number;
  /** The webhook's secret, opened. */
  readonly secret: string;
}

export type FormatMethod = "POST" | "PUT";

/** Which targets a format takes, and where each attempt of a delivery goes. */
export interface TargetRule {
  /** Why this format cannot send to a URL the private-address guard already let through, or null. */
  readonly problem: (target: URL) => string | null;
  /** The URL one attempt is sent to, from the stored target and the delivery's message id. */
  readonly deliveryUrl: (target: URL, messageId: string) => URL;
}

interface FormatBase<Name extends string> {
  readonly name: Name;
  /** How prose names it: "Discord", or the name itself. */
  readonly label: string;
  /** For the API reference: the target it takes and what it sends, after "name: ". */
  readonly summary: string;
  /** For the API reference: what its receiver gets instead of the stored message ("a Slack message"), or null when the body is the stored message itself. */
  readonly carries: string | null;
  readonly method: FormatMethod;
  readonly target: TargetRule;
  /** The headers that carry the delivery's message id, so a receiver can tell a retry from a new message; none when the receiver has no way to. */
  readonly idempotency: (messageId: string) => Readonly<Record<string, string>>;
}

/** A format whose receivers verify a signature made with the webhook's secret. */
export interface SignedFormat<Name extends string = string> extends FormatBase<Name> {
  readonly signed: true;
  readonly render: (stored: StoredMessage, signing: Signing) => Rendered;
}

/** A format whose receivers know no signature: the target URL itself is the credential, and the secret is never opened for it. */
export interface UnsignedFormat<Name extends string = string> extends FormatBase<Name> {
  readonly signed: false;
  readonly render: (stored: StoredMessage) => Rendered;
}

export type FormatSpec<Name extends string = string> = SignedFormat<Name> | UnsignedFormat<Name>;

/** Any target the guard lets through, each attempt sent to it as it is. */
export const TARGET_AS_GIVEN: TargetRule = {
  problem: () => null,
  deliveryUrl: (target) => target,
};

/** For receivers that take no message id: a retry after a lost reply may show twice there. */
export const NO_MESSAGE_ID = (): Readonly<Record<string, string>> => ({});
