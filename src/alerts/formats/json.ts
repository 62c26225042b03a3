/** `json`: the stored message as it is, signed as Standard Webhooks prescribes. */
import { createHmac } from "node:crypto";
import { secretKeyBytes } from "../secrets.ts";
import { TARGET_AS_GIVEN, type SignedFormat } from "./format.ts";

/** The Standard Webhooks signature: HMAC-SHA256 over `id.timestamp.body`, keyed with the secret's bytes. */
export function standardSignature(secret: string, id: string, timestampSeconds: number, body: string): string {
  const mac = createHmac("sha256", secretKeyBytes(secret)).update(`${id}.${timestampSeconds}.${body}`).digest("base64");
  return `v1,${mac}`;
}

export const json = {
  name: "json",
  label: "json",
  summary: "Standard Webhooks (webhook-id, webhook-timestamp, webhook-signature headers; body { type, timestamp, data })",
  carries: null,
  method: "POST",
  target: TARGET_AS_GIVEN,
  idempotency: (messageId) => ({ "webhook-id": messageId }),
  signed: true,
  // The body is the stored text byte for byte, so only the signature's timestamp differs between retries.
  render: ({ payload }, { messageId, timestampSeconds, secret }) => ({
    headers: {
      "content-type": "application/json",
      "webhook-timestamp": String(timestampSeconds),
      "webhook-signature": standardSignature(secret, messageId, timestampSeconds, payload),
    },
    body: payload,
  }),
} as const satisfies SignedFormat<"json">;
