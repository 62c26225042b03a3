/**
 * The webhook formats' registry (issue 27): every registered format renders
 * every message kind, and a format added to the list is taken by validation,
 * rendering and the transport with nothing else changed.
 */
import { describe, expect, test } from "bun:test";
import { Value } from "@sinclair/typebox/value";
import type { UnsignedFormat } from "../../src/alerts/formats/format.ts";
import { FORMATS } from "../../src/alerts/formats/index.ts";
import { FormatRegistry, type Sending } from "../../src/alerts/formats/registry.ts";
import { summarize } from "../../src/alerts/formats/summary.ts";
import type { Resolve } from "../../src/alerts/guard.ts";
import type { AlertMessage } from "../../src/alerts/model.ts";
import { newWebhookSecret } from "../../src/alerts/secrets.ts";
import { deliver, type Fetcher } from "../../src/alerts/transport.ts";
import { formatSchema } from "../../src/routes/admin/webhooks.ts";
import { WEBHOOK_FORMATS } from "../../src/domain/alerts.ts";

const AT = "2026-11-21T18:04:05.123Z";
const ORIGIN = "https://hub.example.org";

/** One message of every kind: the type checker refuses this table when a kind is missing. */
const MESSAGES: Record<AlertMessage["type"], AlertMessage> = {
  "bonus.reached": {
    type: "bonus.reached",
    timestamp: AT,
    data: { platform: "GRDK", region: "eu-west-1", displayName: "Europe (Ireland)", role: "survivor", bonus: 75, survivor: 75, killer: 0, measuredAt: AT, url: `${ORIGIN}/GRDK/eu-west-1` },
  },
  "status.changed": { type: "status.changed", timestamp: AT, data: { platform: "Windows", status: "error", previousStatus: "ok", statusReason: null, url: `${ORIGIN}/Windows` } },
  "event.started": { type: "event.started", timestamp: AT, data: { key: "bp", label: "Bloodhunt", multiplier: 2, startsAt: AT, endsAt: AT, platforms: ["EGS"], url: `${ORIGIN}/EGS` } },
  "event.ended": { type: "event.ended", timestamp: AT, data: { key: "bp", label: "Bloodhunt", multiplier: 2, startsAt: AT, endsAt: AT, platforms: ["EGS"], url: `${ORIGIN}/EGS` } },
  "backup.failed": { type: "backup.failed", timestamp: AT, data: { target: "s3://hub-backups/vps1", error: "uploading hub-20261121T180405123Z-10.db.zst failed (AccessDenied)", failures: 2, lastSuccessAt: AT } },
  test: { type: "test", timestamp: AT, data: { webhookId: 4, message: "A test message." } },
};

const SECRET = newWebhookSecret();
const sending = (messageId: string): Sending => ({ messageId, timestampSeconds: 1_795_300_000, secret: () => SECRET });

/**
 * A format the hub does not have, written as a newcomer would add one: a
 * Matrix room, sent with PUT to a URL that ends in the delivery's id (Matrix
 * drops a repeated transaction id), the id also in a header, and only a
 * room's send URL taken as a target.
 */
const MATRIX_SEND = /^\/_matrix\/client\/v3\/rooms\/[^/]+\/send\/m\.room\.message$/;
const matrix = {
  name: "matrix",
  label: "Matrix",
  summary: "a Matrix room's send URL (one text message)",
  carries: "a Matrix text message",
  method: "PUT",
  target: {
    problem: (target) => (MATRIX_SEND.test(target.pathname) ? null : "must be a room's /_matrix/client/v3/rooms/{room}/send/m.room.message URL"),
    deliveryUrl: (target, messageId) => {
      const url = new URL(target.href);
      url.pathname = `${url.pathname}/${messageId}`;
      return url;
    },
  },
  idempotency: (messageId) => ({ "idempotency-key": messageId }),
  signed: false,
  render: ({ message }) => {
    const summary = summarize(message);
    return { headers: { "content-type": "application/json" }, body: JSON.stringify({ msgtype: "m.text", body: `${summary.title}\n${summary.text}` }) };
  },
} as const satisfies UnsignedFormat<"matrix">;

const WITH_MATRIX = new FormatRegistry([...FORMATS.formats, matrix]);

describe("the built-in formats", () => {
  test("the names, the API's schema and the registry list the same formats in the same order", () => {
    expect([...WEBHOOK_FORMATS]).toEqual(FORMATS.formats.map((format) => format.name));
    expect(new Set(WEBHOOK_FORMATS).size).toBe(WEBHOOK_FORMATS.length);
    const schema = formatSchema(FORMATS) as unknown as { anyOf: { const: string }[]; description: string };
    expect(schema.anyOf.map((branch) => branch.const)).toEqual([...WEBHOOK_FORMATS]);
    for (const format of FORMATS.formats) expect(schema.description).toContain(`${format.name}: ${format.summary}`);
  });

  test("every registered format renders every message kind, each in its own words, and sends it somewhere", () => {
    for (const registry of [FORMATS, WITH_MATRIX]) {
      for (const format of registry.formats) {
        const bodies = new Set<string>();
        for (const message of Object.values(MESSAGES)) {
          const prepared = registry.prepare(format.name, "https://receiver.example.org/_matrix/client/v3/rooms/r/send/m.room.message", JSON.stringify(message), sending("msg_7"));
          if (typeof prepared === "string") throw new Error(`${format.name} ${message.type}: ${prepared}`);
          expect({ format: format.name, type: message.type, method: prepared.request.method, url: URL.canParse(prepared.url) }).toEqual({
            format: format.name,
            type: message.type,
            method: format.method,
            url: true,
          });
          expect(prepared.request.headers["content-type"]).toBeDefined();
          expect(prepared.request.body.length).toBeGreaterThan(0);
          bodies.add(prepared.request.body);
        }
        expect({ format: format.name, distinct: bodies.size }).toEqual({ format: format.name, distinct: Object.keys(MESSAGES).length });
      }
    }
  });

  test("only a format that signs opens the secret, and one that cannot be opened is a delivery error, not a crash", () => {
    for (const format of FORMATS.formats) {
      let asked = 0;
      const prepared = FORMATS.prepare(format.name, "https://receiver.example.org/hook", JSON.stringify(MESSAGES.test), {
        ...sending("msg_8"),
        secret: () => {
          asked++;
          return null;
        },
      });
      expect({ format: format.name, asked }).toEqual({ format: format.name, asked: format.signed ? 1 : 0 });
      if (format.signed) expect(prepared).toMatch(/signing secret cannot be read/);
      else expect(typeof prepared).toBe("object");
    }
  });

  test("a stored format the hub no longer has is a delivery error naming it", () => {
    const withoutNtfy = new FormatRegistry(FORMATS.formats.filter((format) => format.name !== "ntfy"));
    expect(withoutNtfy.prepare("ntfy", "https://ntfy.sh/topic", JSON.stringify(MESSAGES.test), sending("msg_9"))).toBe(
      "this hub has no webhook format named ntfy; choose another format",
    );
    expect(withoutNtfy.targetProblem("ntfy", "https://ntfy.sh/topic")).toBe("ntfy is not a webhook format");
  });

  test("two formats under one name are refused when the list is built", () => {
    expect(() => new FormatRegistry([...FORMATS.formats, { ...matrix, name: "slack" }])).toThrow(/share a name/);
  });
});

describe("a format added to the list, and nothing else", () => {
  test("the API's schema takes its name, in the list's order, with its summary", () => {
    const schema = formatSchema(WITH_MATRIX);
    expect(Value.Check(schema, "matrix")).toBe(true);
    expect(Value.Check(schema, "json")).toBe(true);
    expect(Value.Check(schema, "xml")).toBe(false);
    expect(Value.Check(formatSchema(FORMATS), "matrix")).toBe(false);
    const documented = schema as unknown as { anyOf: { const: string }[]; description: string };
    expect(documented.anyOf.map((branch) => branch.const)).toEqual([...WEBHOOK_FORMATS, "matrix"]);
    expect(documented.description).toEndWith(`; matrix: ${matrix.summary}`);
  });

  test("its URL rule decides which targets it takes; the others' rules are untouched", () => {
    const room = "https://matrix.example.org/_matrix/client/v3/rooms/!abc:example.org/send/m.room.message";
    expect(WITH_MATRIX.targetProblem("matrix", room)).toBeNull();
    expect(WITH_MATRIX.targetProblem("matrix", "https://matrix.example.org/hook")).toMatch(/room's .*send\/m\.room\.message URL/);
    expect(WITH_MATRIX.targetProblem("json", "https://matrix.example.org/hook")).toBeNull();
  });

  test("the transport sends it with its method, to the URL its rule builds, with the delivery's id where it puts it, the same on a retry", async () => {
    const seen: { url: string; method: string | undefined; host: string | null; key: string | null; body: unknown }[] = [];
    const fetch: Fetcher = async (url, init) => {
      const headers = new Headers(init.headers);
      seen.push({ url, method: init.method, host: headers.get("host"), key: headers.get("idempotency-key"), body: init.body });
      return new Response(null, { status: 200 });
    };
    const resolve: Resolve = async () => ["93.184.215.14"];
    const options = { allowPrivate: false, timeoutMs: 2000, maxRedirects: 3, bodyCapBytes: 4096, resolve, fetch };
    const room = "https://matrix.example.org/_matrix/client/v3/rooms/r1/send/m.room.message";
    for (let attempt = 0; attempt < 2; attempt++) {
      const prepared = WITH_MATRIX.prepare("matrix", room, JSON.stringify(MESSAGES["bonus.reached"]), sending("msg_0193abc"));
      if (typeof prepared === "string") throw new Error(prepared);
      expect(await deliver(prepared.url, prepared.request, options, new AbortController().signal)).toEqual({ delivered: true, statusCode: 200, error: null });
    }
    const expected = {
      url: "https://93.184.215.14/_matrix/client/v3/rooms/r1/send/m.room.message/msg_0193abc",
      method: "PUT",
      host: "matrix.example.org",
      key: "msg_0193abc",
      body: JSON.stringify({ msgtype: "m.text", body: "+75 % survivor bonus: Europe (Ireland)\nSurvivors get +75 % bloodpoints in Europe (Ireland) on Microsoft Store." }),
    };
    expect(seen).toEqual([expected, expected]);
  });
});
