/**
 * What each webhook format sends (SPEC §18): `json` signed so that the
 * Standard Webhooks library (code we did not write) verifies it, and the
 * Discord, Slack and ntfy bodies and headers in the shapes their
 * documentation gives.
 */
import { describe, expect, test } from "bun:test";
import { Webhook, WebhookVerificationError } from "standardwebhooks";
import { FORMATS } from "../../src/alerts/formats/index.ts";
import { standardSignature } from "../../src/alerts/formats/json.ts";
import type { Sending } from "../../src/alerts/formats/registry.ts";
import type { AlertMessage, BonusReachedData } from "../../src/alerts/model.ts";
import { newWebhookSecret, WebhookSecrets } from "../../src/alerts/secrets.ts";
import { check, type JsonSchema } from "../json-schema.ts";
import type { WebhookFormat } from "../../src/domain/alerts.ts";

const ORIGIN = "https://hub.example.org";

/** What one attempt sends in a format: the headers and body of the request the worker makes. */
function sent(format: WebhookFormat, payload: string, sending: Sending) {
  const prepared = FORMATS.prepare(format, "https://receiver.example.org/hook", payload, sending);
  if (typeof prepared === "string") throw new Error(prepared);
  return prepared.request;
}

const renderSigned = (payload: string, signing: { id: string; timestampSeconds: number; secret: string }) =>
  sent("json", payload, { messageId: signing.id, timestampSeconds: signing.timestampSeconds, secret: () => signing.secret });

/** The formats that word a message for people rather than hand over its data. */
const CHAT_FORMATS = FORMATS.formats.flatMap((format) => (format.carries === null ? [] : [format.name]));
type ChatFormat = (typeof CHAT_FORMATS)[number];
const renderChat = (format: ChatFormat, message: AlertMessage) =>
  sent(format, JSON.stringify(message), {
    messageId: "msg_1",
    timestampSeconds: 1,
    secret: () => {
      throw new Error(`${format} asked for the signing secret`);
    },
  });
const AT = "2026-11-21T18:04:05.123Z";

const MESSAGES: Record<AlertMessage["type"], AlertMessage> = {
  "bonus.reached": {
    type: "bonus.reached",
    timestamp: AT,
    data: {
      platform: "Windows",
      region: "sa-east-1",
      displayName: "South America (São Paulo)",
      role: "killer",
      bonus: 150,
      survivor: 0,
      killer: 150,
      measuredAt: "2026-11-21T18:04:00.000Z",
      url: `${ORIGIN}/Windows/sa-east-1`,
    },
  },
  "status.changed": {
    type: "status.changed",
    timestamp: AT,
    data: { platform: "EGS", status: "degraded", previousStatus: "ok", statusReason: "agents have not reported fresh data recently", url: `${ORIGIN}/EGS` },
  },
  "event.started": {
    type: "event.started",
    timestamp: AT,
    data: { key: "double-bp", label: "Double <Bloodpoints> & more", multiplier: 2, startsAt: AT, endsAt: "2026-11-28T18:00:00.000Z", platforms: ["Windows", "GRDK"], url: `${ORIGIN}/` },
  },
  "event.ended": {
    type: "event.ended",
    timestamp: AT,
    data: { key: "double-bp", label: "Double Bloodpoints", multiplier: 2, startsAt: AT, endsAt: "2026-11-28T18:00:00.000Z", platforms: ["EGS"], url: `${ORIGIN}/EGS` },
  },
  "backup.failed": { type: "backup.failed", timestamp: AT, data: { target: "s3://hub-backups/vps1", error: "uploading hub-20261121T180405123Z-10.db.zst failed (AccessDenied)", failures: 2, lastSuccessAt: AT } },
  test: { type: "test", timestamp: AT, data: { webhookId: 7, message: "A test message." } },
};

const ISO = "^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(\\.\\d+)?Z$";

/** Discord's execute-webhook body as its documentation lists it (the parts the hub uses), with the documented limits. */
const DISCORD: JsonSchema = {
  type: "object",
  required: ["embeds"],
  properties: {
    content: { type: "string", maxLength: 2000 },
    allowed_mentions: { type: "object", required: ["parse"], properties: { parse: { type: "array", items: { enum: ["roles", "users", "everyone"] } } } },
    embeds: {
      type: "array",
      items: {
        type: "object",
        required: ["title", "description", "color", "fields", "timestamp"],
        properties: {
          title: { type: "string", minLength: 1, maxLength: 256 },
          description: { type: "string", maxLength: 4096 },
          url: { type: "string", pattern: "^https?://" },
          color: { type: "integer", minimum: 0, maximum: 0xffffff },
          timestamp: { type: "string", pattern: ISO },
          fields: {
            type: "array",
            items: {
              type: "object",
              required: ["name", "value"],
              properties: { name: { type: "string", minLength: 1, maxLength: 256 }, value: { type: "string", minLength: 1, maxLength: 1024 }, inline: { type: "boolean" } },
            },
          },
        },
      },
    },
  },
};

const PLAIN_TEXT = (max: number): JsonSchema => ({
  type: "object",
  required: ["type", "text"],
  properties: { type: { const: "plain_text" }, text: { type: "string", minLength: 1, maxLength: max }, emoji: { type: "boolean" } },
});
const MRKDWN: JsonSchema = { type: "object", required: ["type", "text"], properties: { type: { const: "mrkdwn" }, text: { type: "string", minLength: 1, maxLength: 3000 } } };

/** Slack's incoming-webhook body: `text` (the notification and fallback, mrkdwn off) and header, section and context blocks, with the documented limits. */
const SLACK: JsonSchema = {
  type: "object",
  required: ["text"],
  properties: {
    text: { type: "string", minLength: 1 },
    mrkdwn: { type: "boolean" },
    blocks: {
      type: "array",
      items: {
        type: "object",
        required: ["type"],
        properties: {
          type: { enum: ["header", "section", "context"] },
          text: { type: "object", required: ["type", "text"], properties: { type: { enum: ["plain_text", "mrkdwn"] }, text: { type: "string", minLength: 1, maxLength: 3000 } } },
          fields: { type: "array", items: PLAIN_TEXT(2000) },
          elements: { type: "array", items: MRKDWN },
        },
      },
    },
  },
};

/** Reads an RFC 2047 encoded-word back, as ntfy does. */
function decodeHeader(value: string): string {
  const word = /^=\?UTF-8\?B\?([A-Za-z0-9+/=]*)\?=$/.exec(value);
  return word ? Buffer.from(word[1] ?? "", "base64").toString("utf8") : value;
}

describe("json: Standard Webhooks", () => {
  test("the signature is the one the standardwebhooks library computes and verifies, over the stored message byte for byte", () => {
    const secret = newWebhookSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const payload = JSON.stringify(MESSAGES["bonus.reached"]);
    const timestampSeconds = Math.floor(Date.now() / 1000);
    const rendered = renderSigned(payload, { id: "msg_42", timestampSeconds, secret });
    expect(rendered.body).toBe(payload);
    expect(rendered.headers["webhook-id"]).toBe("msg_42");
    expect(rendered.headers["webhook-timestamp"]).toBe(String(timestampSeconds));
    expect(rendered.headers["content-type"]).toBe("application/json");
    const library = new Webhook(secret);
    expect(rendered.headers["webhook-signature"]).toBe(library.sign("msg_42", new Date(timestampSeconds * 1000), payload));
    expect(library.verify(rendered.body, { ...rendered.headers })).toEqual(MESSAGES["bonus.reached"]);
    expect(() => library.verify(rendered.body.replace("150", "151"), { ...rendered.headers })).toThrow(WebhookVerificationError);
    expect(() => new Webhook(newWebhookSecret()).verify(rendered.body, { ...rendered.headers })).toThrow(WebhookVerificationError);
    expect(standardSignature(secret, "msg_42", timestampSeconds, payload)).toBe(rendered.headers["webhook-signature"] ?? "");
  });

  test("secrets are sealed for storage: they open only with the same hub key and for the same webhook", () => {
    const key = new Uint8Array(32).fill(7);
    const secrets = new WebhookSecrets(key);
    const secret = newWebhookSecret();
    const sealed = secrets.seal(3, secret);
    expect(sealed).not.toContain(secret.slice(6));
    expect(secrets.open(3, sealed)).toBe(secret);
    expect(secrets.open(4, sealed)).toBeNull();
    expect(new WebhookSecrets(new Uint8Array(32).fill(8)).open(3, sealed)).toBeNull();
    expect(secrets.open(3, secret)).toBeNull();
  });
});

describe("chat formats", () => {
  const all = Object.values(MESSAGES);

  test("discord: an execute-webhook body with one embed, within Discord's limits, that can ping nobody", () => {
    for (const message of all) {
      const rendered = renderChat("discord", message);
      expect(rendered.headers["content-type"]).toBe("application/json");
      const body = JSON.parse(rendered.body) as { embeds: { title: string; url?: string; fields: unknown[] }[]; allowed_mentions: { parse: unknown[] } };
      expect({ type: message.type, problems: check(DISCORD, body) }).toEqual({ type: message.type, problems: [] });
      expect(body.embeds.length).toBe(1);
      expect(body.embeds[0]?.fields.length).toBeLessThanOrEqual(25);
      expect(body.allowed_mentions.parse).toEqual([]);
    }
    const bonus = JSON.parse(renderChat("discord", MESSAGES["bonus.reached"]).body) as { embeds: { title: string; url: string; fields: { name: string; value: string }[] }[] };
    const embed = bonus.embeds[0];
    // Titles read Markdown too, so they are escaped like the rest; Discord shows "+150 % killer bonus: South America (São Paulo)".
    expect(embed?.title).toBe("+150 % killer bonus: South America \\(São Paulo\\)");
    expect(embed?.url).toBe(`${ORIGIN}/Windows/sa-east-1`);
    expect(embed?.fields).toContainEqual(expect.objectContaining({ name: "Platform", value: "Steam" }));
    // Markdown characters are escaped; Discord shows "South America (São Paulo) (sa-east-1)".
    expect(embed?.fields).toContainEqual(expect.objectContaining({ name: "Region", value: "South America \\(São Paulo\\) \\(sa-east-1\\)" }));
    expect(embed?.fields).toContainEqual(expect.objectContaining({ name: "Killer", value: "+150 %" }));
  });

  test("slack: an incoming-webhook body with text and section blocks, markup characters escaped", () => {
    for (const message of all) {
      const rendered = renderChat("slack", message);
      expect(rendered.headers["content-type"]).toBe("application/json");
      const body = JSON.parse(rendered.body) as { blocks: { fields?: unknown[] }[] };
      expect({ type: message.type, problems: check(SLACK, body) }).toEqual({ type: message.type, problems: [] });
      for (const block of body.blocks) expect(block.fields?.length ?? 0).toBeLessThanOrEqual(10);
    }
    const event = renderChat("slack", MESSAGES["event.started"]).body;
    expect(event).toContain("Double &lt;Bloodpoints&gt; &amp; more");
    const bonus = JSON.parse(renderChat("slack", MESSAGES["bonus.reached"]).body) as { text: string; blocks: { type: string; text?: { text: string }; elements?: unknown[] }[] };
    expect(bonus.text).toContain("+150 % killer bonus");
    expect(bonus.blocks[0]?.text?.text).toBe("+150 % killer bonus: South America (São Paulo)");
    expect(bonus.blocks.at(-1)).toEqual({ type: "context", elements: [{ type: "mrkdwn", text: `<${ORIGIN}/Windows/sa-east-1|${ORIGIN}/Windows/sa-east-1>` }] });
  });

  test("ntfy: the message as plain text, with Title, Priority, Tags and Click headers; text beyond ASCII as RFC 2047", () => {
    for (const message of all) {
      const rendered = renderChat("ntfy", message);
      expect(rendered.headers["content-type"]).toBe("text/plain; charset=utf-8");
      expect(rendered.body.length).toBeGreaterThan(0);
      for (const value of Object.values(rendered.headers)) expect(value).toMatch(/^[\x20-\x7e]*$/);
      expect(["1", "2", "3", "4", "5"]).toContain(rendered.headers.Priority ?? "");
      expect(rendered.headers.Title).toBeDefined();
      expect(rendered.headers.Tags).toMatch(/^[a-z_.]+(,[a-z_.]+)*$/);
    }
    const bonus = renderChat("ntfy", MESSAGES["bonus.reached"]);
    expect(decodeHeader(bonus.headers.Title ?? "")).toBe("+150 % killer bonus: South America (São Paulo)");
    expect(bonus.headers.Priority).toBe("4");
    expect(bonus.headers.Tags).toBe("moneybag,killer");
    expect(bonus.headers.Click).toBe(`${ORIGIN}/Windows/sa-east-1`);
    expect(bonus.body).toBe("Killers get +150 % bloodpoints in South America (São Paulo) on Steam.");
    expect(renderChat("ntfy", MESSAGES.test).headers.Click).toBeUndefined();
  });

  describe("text from an agent or an admin is plain text in every format (SPEC §16.1)", () => {
    const HOSTILE = "@everyone @here <@123456> <@&42> [free bonus](https://evil.example) **loud** <!here> <https://evil.example|click> & `code`\r\nActions: view, pwn, https://evil.example";
    const event: AlertMessage = {
      type: "event.started",
      timestamp: AT,
      data: { key: "hostile", label: HOSTILE, multiplier: 2, startsAt: AT, endsAt: "2026-11-28T18:00:00.000Z", platforms: ["Windows"], url: `${ORIGIN}/` },
    };
    const status: AlertMessage = { type: "status.changed", timestamp: AT, data: { platform: "EGS", status: "degraded", previousStatus: "ok", statusReason: HOSTILE, url: `${ORIGIN}/EGS` } };
    /** What Discord would render as Markdown: the text with every backslash-escaped character taken out. */
    const unescaped = (text: string) => text.replace(/\\[\s\S]/g, "");

    test("discord: no masked link, no Markdown, no mention, even in looks", () => {
      for (const message of [event, status]) {
        const body = JSON.parse(renderChat("discord", message).body) as { content?: string; embeds: { title: string; description: string; fields: { name: string; value: string }[] }[]; allowed_mentions: { parse: unknown[] } };
        expect(body.allowed_mentions).toEqual({ parse: [] });
        expect(body.content).toBeUndefined();
        const embed = body.embeds[0];
        if (!embed) throw new Error("no embed");
        const rendered = [embed.description, ...embed.fields.map((f) => f.value)];
        for (const text of rendered) expect(unescaped(text)).not.toMatch(/[[\]()<>*`]/);
        for (const text of [embed.title, ...rendered]) {
          expect(text).not.toMatch(/@(everyone|here)|<@&?\d/);
        }
        expect(embed.description).toContain("\\[free bonus\\]\\(https://evil.example\\)");
        expect(embed.description).toContain("@\u200beveryone");
      }
    });

    test("slack: &, < and > escaped in text and every block, so no link, mention or <!here> is made", () => {
      for (const message of [event, status]) {
        const body = JSON.parse(renderChat("slack", message).body) as { text: string; blocks: { text?: { text: string }; fields?: { text: string }[] }[] };
        const texts = [body.text, ...body.blocks.flatMap((b) => [b.text?.text ?? "", ...(b.fields ?? []).map((f) => f.text)])];
        // The one link is the hub's own, made by the hub.
        for (const text of texts) expect(text.replace(/^\*<https:\/\/hub\.example\.org\/[^|>]*\|([^<>]*)>\*/, "$1")).not.toMatch(/[<>]|&(?!amp;|lt;|gt;)/);
        expect(body.text).toContain("&lt;!here&gt; &lt;https://evil.example|click&gt; &amp;");
      }
    });

    test("ntfy: title and body as they were written, no Markdown asked for, no header added by a line break", () => {
      const rendered = renderChat("ntfy", event);
      expect(Object.keys(rendered.headers).sort()).toEqual(["Click", "Priority", "Tags", "Title", "content-type"]);
      for (const value of Object.values(rendered.headers)) expect(value).toMatch(/^[\x20-\x7e]*$/);
      expect(decodeHeader(rendered.headers.Title ?? "")).toBe(`Event started: ${HOSTILE} ×2`);
      expect(rendered.body).toStartWith(`${HOSTILE} (×2 bloodpoints)`);
      expect(renderChat("ntfy", status).body).toContain(HOSTILE);
    });
  });

  describe("agent text is plain text in every field of a chat message, titles included (SPEC §16.3)", () => {
    const LABELS = [
      "[y](https://evil.example)",
      "@everyone <@123> <@&42> @here",
      "**bold** __under__ _x_ *i* ~~gone~~ ||spoiler|| `tick` ```fence```",
      "> quote\n# heading\n- item",
      "<https://evil.example|click> <!channel> &amp;",
    ];
    const messages = (label: string): AlertMessage[] => [
      { type: "event.started", timestamp: AT, data: { key: "k", label, multiplier: 2, startsAt: AT, endsAt: AT, platforms: ["Windows"], url: `${ORIGIN}/Windows` } },
      { type: "event.ended", timestamp: AT, data: { key: "k", label, multiplier: 2, startsAt: AT, endsAt: AT, platforms: ["Windows"], url: `${ORIGIN}/Windows` } },
      { type: "bonus.reached", timestamp: AT, data: { ...(MESSAGES["bonus.reached"].data as BonusReachedData), displayName: label } },
      { type: "status.changed", timestamp: AT, data: { platform: "EGS", status: "degraded", previousStatus: "ok", statusReason: label, url: `${ORIGIN}/EGS` } },
    ];
    /** Every string in a JSON value, with the key that holds it. */
    const strings = (value: unknown, key = ""): { key: string; text: string; holder: Record<string, unknown> }[] => {
      if (Array.isArray(value)) return value.flatMap((item) => strings(item, key));
      if (value !== null && typeof value === "object") {
        const holder = value as Record<string, unknown>;
        return Object.entries(holder).flatMap(([k, v]) => (typeof v === "string" ? [{ key: k, text: v, holder }] : strings(v, k)));
      }
      return [];
    };
    /** What Discord's Markdown acts on once every backslash-escaped character is taken out. */
    const DISCORD_MARKUP = /[[\]()*_~`|<>#]|@(everyone|here)|^\s*[-+] /m;

    test("discord: no masked link, mention or Markdown in the title, the description or any field", () => {
      for (const label of LABELS) {
        for (const message of messages(label)) {
          const body = JSON.parse(renderChat("discord", message).body) as { embeds: Record<string, unknown>[] };
          expect(check(DISCORD, body)).toEqual([]);
          for (const { key, text } of strings(body.embeds)) {
            if (["url", "timestamp"].includes(key)) continue;
            expect({ type: message.type, key, text: text.replace(/\\[\s\S]/g, "") }).not.toEqual({ type: message.type, key, text: expect.stringMatching(DISCORD_MARKUP) });
          }
        }
      }
    });

    test("slack: agent text only in plain_text or in the top-level text with mrkdwn off; &, < and > escaped everywhere", () => {
      for (const label of LABELS) {
        for (const message of messages(label)) {
          const body = JSON.parse(renderChat("slack", message).body) as { text: string; mrkdwn?: boolean; blocks: unknown[] };
          expect(check(SLACK, body)).toEqual([]);
          expect(body.mrkdwn).toBe(false);
          for (const { key, text, holder } of strings(body)) {
            if (key !== "text") continue;
            // The only markup the hub writes is its own link; Slack has no escape for *, _, ~ or `, so agent text never goes where they act.
            if (holder.type === "mrkdwn") expect(text).toMatch(/^<https:\/\/hub\.example\.org\/[^|<>]*\|[^<>]*>$/);
            expect(text.replace(/^<https:\/\/hub\.example\.org\/[^|<>]*\|([^<>]*)>$/, "$1")).not.toMatch(/[<>]|&(?!amp;|lt;|gt;)/);
          }
        }
      }
    });
  });

  describe("an agent's event label and a region's display name, byte for byte (issue 19)", () => {
    const LABEL = "<!channel> <https://x|y> [y](https://x) @everyone **b** _i_ ~~s~~ `c` # h > q";
    /** The label as Slack reads it: only &, < and > are markup Slack lets a sender escape, and all three are. */
    const SLACK_LABEL = "&lt;!channel&gt; &lt;https://x|y&gt; [y](https://x) @everyone **b** _i_ ~~s~~ `c` # h &gt; q";
    /** The label as Discord's Markdown reads it: every markup character escaped, the mention broken by a zero-width space. */
    const DISCORD_LABEL = "\\<!channel\\> \\<https://x\\|y\\> \\[y\\]\\(https://x\\) @\u200beveryone \\*\\*b\\*\\* \\_i\\_ \\~\\~s\\~\\~ \\`c\\` \\# h \\> q";
    const ENDS = "2026-11-28T18:00:00.000Z";
    const started: AlertMessage = { type: "event.started", timestamp: AT, data: { key: "BPEVENT_Bloodhunt_NAME", label: LABEL, multiplier: 2, startsAt: AT, endsAt: ENDS, platforms: ["Windows"], url: `${ORIGIN}/Windows` } };
    const ended: AlertMessage = { type: "event.ended", timestamp: AT, data: { ...started.data, platforms: ["EGS"], url: `${ORIGIN}/EGS` } };
    const bonus: AlertMessage = { type: "bonus.reached", timestamp: AT, data: { ...(MESSAGES["bonus.reached"].data as BonusReachedData), displayName: LABEL } };

    test("slack: text and blocks", () => {
      const body = (message: AlertMessage) =>
        JSON.parse(renderChat("slack", message).body) as { text: string; blocks: { text?: { type: string; text: string; emoji?: boolean }; fields?: { type: string; text: string; emoji?: boolean }[] }[] };
      expect(body(started).text).toBe(`Event started: ${SLACK_LABEL} ×2: ${SLACK_LABEL} (×2 bloodpoints) runs until ${ENDS}.`);
      expect(body(started).blocks[0]?.text).toEqual({ type: "plain_text", text: `Event started: ${SLACK_LABEL} ×2`, emoji: false });
      expect(body(started).blocks[1]?.text).toEqual({ type: "plain_text", text: `${SLACK_LABEL} (×2 bloodpoints) runs until ${ENDS}.`, emoji: false });
      expect(body(ended).text).toBe(`Event ended: ${SLACK_LABEL} ×2: ${SLACK_LABEL} (×2 bloodpoints) has ended.`);
      expect(body(bonus).text).toBe(`+150 % killer bonus: ${SLACK_LABEL}: Killers get +150 % bloodpoints in ${SLACK_LABEL} on Steam.`);
      expect(body(bonus).blocks[2]?.fields).toContainEqual({ type: "plain_text", text: `Region\n${SLACK_LABEL} (sa-east-1)`, emoji: false });
    });

    test("discord: description, fields and title", () => {
      const embed = (message: AlertMessage) =>
        (JSON.parse(renderChat("discord", message).body) as { embeds: { title: string; description: string; fields: { name: string; value: string; inline: boolean }[] }[] }).embeds[0];
      expect(embed(started)?.description).toBe(`${DISCORD_LABEL} \\(×2 bloodpoints\\) runs until ${ENDS}.`);
      expect(embed(ended)?.description).toBe(`${DISCORD_LABEL} \\(×2 bloodpoints\\) has ended.`);
      expect(embed(started)?.title).toBe(`Event started: ${DISCORD_LABEL} ×2`);
      expect(embed(bonus)?.description).toBe(`Killers get +150 % bloodpoints in ${DISCORD_LABEL} on Steam.`);
      expect(embed(bonus)?.fields).toContainEqual({ name: "Region", value: `${DISCORD_LABEL} \\(sa-east-1\\)`, inline: true });
    });

    test("discord: a label of 120 mentions still makes a title Discord accepts", () => {
      const crowded: AlertMessage = { ...started, data: { ...started.data, label: "@".repeat(120), multiplier: 100 } } as AlertMessage;
      const body = JSON.parse(renderChat("discord", crowded).body) as { embeds: { title: string }[] };
      expect(check(DISCORD, body)).toEqual([]);
      expect(body.embeds[0]?.title).toStartWith(`Event started: ${"@\u200b".repeat(100)}`);
    });

    test("ntfy: plain text, as written", () => {
      const rendered = renderChat("ntfy", started);
      expect(rendered.headers["content-type"]).toBe("text/plain; charset=utf-8");
      expect(rendered.headers.Markdown).toBeUndefined();
      expect(rendered.body).toBe(`${LABEL} (×2 bloodpoints) runs until ${ENDS}.`);
      expect(decodeHeader(rendered.headers.Title ?? "")).toBe(`Event started: ${LABEL} ×2`);
      expect(renderChat("ntfy", ended).body).toBe(`${LABEL} (×2 bloodpoints) has ended.`);
      expect(renderChat("ntfy", bonus).body).toBe(`Killers get +150 % bloodpoints in ${LABEL} on Steam.`);
      expect(decodeHeader(renderChat("ntfy", bonus).headers.Title ?? "")).toBe(`+150 % killer bonus: ${LABEL}`);
    });

    test("json: the label as data, for the receiver to escape", () => {
      expect(renderSigned(JSON.stringify(started), { id: "msg_1", timestampSeconds: 1, secret: newWebhookSecret() }).body).toContain(JSON.stringify(LABEL));
    });
  });

  test("every chat format words every message type", () => {
    expect(CHAT_FORMATS.length).toBeGreaterThan(0);
    for (const format of CHAT_FORMATS) {
      expect(renderChat(format, MESSAGES["status.changed"]).body).toContain("degraded");
      expect(renderChat(format, MESSAGES["event.started"]).body).toMatch(/Event started|runs until/);
      expect(renderChat(format, MESSAGES["event.ended"]).body).toMatch(/Event ended|has ended/);
      expect(renderChat(format, MESSAGES.test).body).toContain("A test message.");
    }
  });
});
