/**
 * The interactions endpoint with requests signed by a real Ed25519 key pair
 * the test makes: verification first, then every command, the autocomplete
 * and the Refresh button, in the reader's language, as plain text.
 */
import { describe, expect, test } from "bun:test";
import type { APIEmbed } from "discord-api-types/v10";
import type { Hub } from "../../src/hub.ts";
import { adminHub } from "../admin-helpers.ts";
import { autocompleteInteraction, buttonInteraction, commandInteraction, discordEnv, discordKeys, signatureHeaders, type DiscordKeys } from "../discord.ts";
import { call, json, testHub } from "../helpers.ts";
import { storeReadings } from "../history-helpers.ts";
import { addAgent, post, reading } from "../live-helpers.ts";

const PATH = "/api/v1/discord/interactions";
const keys = discordKeys();

interface Answer {
  type: number;
  data?: { content?: string; flags?: number; embeds?: APIEmbed[]; components?: { components: { custom_id: string; label: string }[] }[]; choices?: { name: string; value: string }[]; allowed_mentions?: unknown };
}

async function send(hub: Hub, body: unknown, options: { keys?: DiscordKeys; timestamp?: number; tamper?: boolean } = {}): Promise<Response> {
  const text = JSON.stringify(body);
  const headers = signatureHeaders(options.keys ?? keys, text, options.timestamp);
  return await deliver(hub, options.tamper ? text.replace("bonus", "bonuz") : text, headers);
}

/** A request as Discord sends it: to the hub's public origin (a change addressed to another host is refused there). */
async function deliver(hub: Hub, body: string, headers: Record<string, string>): Promise<Response> {
  return await hub.app.handle(new Request(`${hub.ctx.config.origin}${PATH}`, { method: "POST", headers, body }));
}

async function answer(hub: Hub, body: unknown): Promise<Answer> {
  const response = await send(hub, body);
  expect(response.status).toBe(200);
  return await json<Answer>(response);
}

function discordHub(env: Record<string, string> = {}): Hub {
  return testHub({ env: { ...discordEnv(keys), ORIGIN: "https://hub.example.org", ...env } });
}

/** A hub with Steam readings in three regions: Frankfurt killer +75, Ireland survivor +25, London none. */
async function busyHub(env: Record<string, string> = {}): Promise<Hub> {
  const hub = discordHub(env);
  const now = Date.now();
  for (const [region, values] of [
    ["eu-central-1", { killer: 75, survivor: 0 }],
    ["eu-west-1", { killer: 0, survivor: 25 }],
    ["eu-west-2", { killer: 0, survivor: 0 }],
  ] as const) {
    const agent = addAgent(hub, region);
    expect((await post(hub, agent, reading("Windows", region, now - 60_000, values))).status).toBe(201);
  }
  return hub;
}

const embedOf = (a: Answer): APIEmbed => {
  const embed = a.data?.embeds?.[0];
  if (!embed) throw new Error(`no embed in ${JSON.stringify(a)}`);
  return embed;
};
const textOf = (embed: APIEmbed): string => [embed.title, embed.description, ...(embed.fields ?? []).flatMap((f) => [f.name, f.value])].join("\n");

describe("verification", () => {
  test("a PING signed with the configured key gets PONG", async () => {
    const hub = discordHub();
    expect(await answer(hub, { type: 1 })).toEqual({ type: 1 });
  });

  test("missing headers, another key, a changed body and a stale or future timestamp are 401", async () => {
    const hub = discordHub();
    const body = JSON.stringify(commandInteraction("bonus"));
    const unsigned = await deliver(hub, body, { "content-type": "application/json" });
    expect(unsigned.status).toBe(401);
    expect((await json<{ detail: string }>(unsigned)).detail).toContain("X-Signature-Ed25519");
    expect((await send(hub, commandInteraction("bonus"), { keys: discordKeys() })).status).toBe(401);
    expect((await send(hub, commandInteraction("bonus"), { tamper: true })).status).toBe(401);
    const now = Math.floor(Date.now() / 1000);
    expect((await send(hub, { type: 1 }, { timestamp: now - 6 * 60 })).status).toBe(401);
    expect((await send(hub, { type: 1 }, { timestamp: now + 6 * 60 })).status).toBe(401);
    expect((await send(hub, { type: 1 }, { timestamp: now - 4 * 60 })).status).toBe(200);
    const garbled = await deliver(hub, body, { "content-type": "application/json", "x-signature-ed25519": "zz", "x-signature-timestamp": String(now) });
    expect(garbled.status).toBe(401);
  });

  test("a body over 64 KiB is a 413, signed or not", async () => {
    const hub = discordHub();
    const big = JSON.stringify({ type: 1, padding: "x".repeat(70 * 1024) });
    const response = await deliver(hub, big, signatureHeaders(keys, big));
    expect(response.status).toBe(413);
  });

  test("a signed body that is not JSON is a 400; the endpoint is 404 while Discord is off", async () => {
    const hub = discordHub();
    const text = "not json";
    expect((await deliver(hub, text, signatureHeaders(keys, text))).status).toBe(400);
    const off = testHub();
    expect((await deliver(off, "{}", signatureHeaders(keys, "{}"))).status).toBe(404);
  });

  test("the interactions are counted by type and result in /metrics", async () => {
    const hub = await busyHub({ METRICS_TOKEN: "metrics-token-discord-test" });
    await answer(hub, { type: 1 });
    await answer(hub, commandInteraction("bonus"));
    await answer(hub, commandInteraction("bonus", [{ name: "region", value: "atlantis" }]));
    await send(hub, { type: 1 }, { keys: discordKeys() });
    const text = await (await call(hub, "GET", "/metrics", { headers: { authorization: "Bearer metrics-token-discord-test" } })).text();
    expect(text).toContain('hub_discord_interactions_total{type="ping",result="answered"} 1');
    expect(text).toContain('hub_discord_interactions_total{type="bonus",result="answered"} 1');
    expect(text).toContain('hub_discord_interactions_total{type="bonus",result="unknown_region"} 1');
    expect(text).toContain('hub_discord_interactions_total{type="unknown",result="bad_signature"} 1');
  });
});

describe("/bonus", () => {
  test("with a region: its bonus, both roles, freshness, its page and a Refresh button", async () => {
    const hub = await busyHub();
    const reply = await answer(hub, commandInteraction("bonus", [{ name: "region", value: "eu-central-1" }]));
    expect(reply.type).toBe(4);
    const embed = embedOf(reply);
    expect(embed.title).toBe("🇩🇪 EU Central \\(Frankfurt\\), Steam");
    expect(embed.url).toBe("https://hub.example.org/Windows/eu-central-1");
    expect(embed.description).toBe("**Killer +75 %**");
    expect(embed.fields?.map((f) => [f.name, f.value])).toEqual([
      ["Survivor bonus", "+0 %"],
      ["Killer bonus", "+75 %"],
      ["Updated", expect.stringMatching(/^<t:\d+:R>$/)],
    ]);
    expect(reply.data?.components?.[0]?.components[0]).toMatchObject({ custom_id: "refresh:Windows:eu-central-1", label: "Refresh" });
    expect(reply.data?.allowed_mentions).toEqual({ parse: [] });
  });

  test("a region found by its short name or name, in any case", async () => {
    const hub = await busyHub();
    for (const given of ["Frankfurt", "eu central (frankfurt)"]) {
      expect(embedOf(await answer(hub, commandInteraction("bonus", [{ name: "region", value: given }]))).url).toEndWith("/eu-central-1");
    }
  });

  test("without a region: the platform's regions with a bonus now, best first", async () => {
    const hub = await busyHub();
    const embed = embedOf(await answer(hub, commandInteraction("bonus")));
    expect(embed.title).toBe("Steam: bonuses now");
    expect(embed.description?.split("\n")).toEqual(["🇩🇪 EU Central \\(Frankfurt\\): **Killer +75 %**", "🇮🇪 EU West \\(Ireland\\): **Survivor +25 %**"]);
    const empty = embedOf(await answer(hub, commandInteraction("bonus", [{ name: "platform", value: "EGS" }])));
    expect(empty.description).toBe("No region has a bonus on Epic Games Store now.");
  });

  test("an event in force shows the total, with the agent's label as plain text", async () => {
    const hub = discordHub();
    const agent = addAgent(hub, "eu-central-1");
    const now = Date.now();
    const activeEvent = { key: "evil", label: "**Free** [bonus](https://evil.example) @everyone", multiplier: 2, startsAt: new Date(now - 3_600_000).toISOString(), endsAt: new Date(now + 3_600_000).toISOString() };
    expect((await post(hub, agent, reading("Windows", "eu-central-1", now - 1000, { killer: 75, activeEvent }))).status).toBe(201);
    const embed = embedOf(await answer(hub, commandInteraction("bonus", [{ name: "region", value: "eu-central-1" }])));
    const field = embed.fields?.find((f) => f.name === "With the event");
    expect(field?.value).toBe("×2.75 \\(\\*\\*Free\\*\\* \\[bonus\\]\\(https://evil.example\\) @\u200beveryone ×2\\)");
    const events = embedOf(await answer(hub, commandInteraction("events")));
    expect(textOf(events)).not.toContain("[bonus](");
    expect(textOf(events)).not.toContain("@everyone");
    expect(textOf(events)).not.toContain("**Free**");
  });

  test("an unknown region gets a sentence only its reader sees", async () => {
    const hub = await busyHub();
    const reply = await answer(hub, commandInteraction("bonus", [{ name: "region", value: "atlantis" }]));
    expect(reply).toEqual({ type: 4, data: { content: 'This hub has no region "atlantis". Start typing and pick one from the list.', flags: 64, allowed_mentions: { parse: [] } } });
    const when = await answer(hub, commandInteraction("when", [{ name: "region", value: "[x](https://evil.example)" }]));
    expect(when.data?.flags).toBe(64);
    expect(when.data?.content).toContain("\\[x\\]\\(https://evil.example\\)");
  });

  test("Refresh (a button, type 3) updates the message (type 7) with the values now", async () => {
    const hub = await busyHub();
    const before = embedOf(await answer(hub, commandInteraction("bonus", [{ name: "region", value: "eu-central-1" }])));
    expect(before.description).toBe("**Killer +75 %**");
    const agent = addAgent(hub, "eu-central-1");
    expect((await post(hub, agent, reading("Windows", "eu-central-1", Date.now(), { killer: 100 }))).status).toBe(201);
    const refreshed = await answer(hub, buttonInteraction("refresh:Windows:eu-central-1"));
    expect(refreshed.type).toBe(7);
    expect(embedOf(refreshed).description).toBe("**Killer +100 %**");
    const list = await answer(hub, buttonInteraction("refresh:Windows:*"));
    expect(list.type).toBe(7);
    expect(embedOf(list).description).toStartWith("🇩🇪 EU Central \\(Frankfurt\\): **Killer +100 %**");
    expect((await answer(hub, buttonInteraction("refresh:Windows:atlantis"))).data?.flags).toBe(64);
  });
});

describe("/when", () => {
  test("best hours in the region's time zone and the forecast's next bonus", async () => {
    const hub = discordHub();
    const hour = 3_600_000;
    const now = Date.now();
    const start = Math.floor(now / hour) * hour - 21 * 24 * hour;
    // Three weeks where the killer bonus comes every day at 18:00 UTC (19:00 or 20:00 in Frankfurt) and never otherwise.
    const readings = [];
    for (let t = start; t < now - hour; t += hour) readings.push({ t, region: "eu-central-1", killer: new Date(t).getUTCHours() === 18 ? 50 : 0 });
    storeReadings(hub.ctx.db, readings);
    hub.reloadExternal();
    const embed = embedOf(await answer(hub, commandInteraction("when", [{ name: "region", value: "eu-central-1" }, { name: "role", value: "killer" }])));
    expect(embed.title).toBe("When to play in 🇩🇪 EU Central \\(Frankfurt\\), Steam");
    const [best, next] = embed.fields ?? [];
    expect(best?.name).toBe("Best hours for a Killer bonus \\(Europe/Berlin\\)");
    const local = new Intl.DateTimeFormat("en", { hour: "numeric", minute: "2-digit", timeZone: "Europe/Berlin" }).format(Date.UTC(2026, 0, 5, 18));
    const summer = new Intl.DateTimeFormat("en", { hour: "numeric", minute: "2-digit", timeZone: "Europe/Berlin" }).format(Date.UTC(2026, 6, 6, 18));
    const lines = best?.value.split("\n") ?? [];
    expect(lines).toHaveLength(3);
    for (const line of lines) expect(line.includes(local) || line.includes(summer)).toBe(true);
    expect(lines[0]).toEndWith(": +50 %, 100 % of the time");
    expect(next?.name).toBe("Next Killer bonus expected");
    expect(next?.value).toMatch(/^\+50 % around .+ \(<t:\d+:R>\)$/);
  });

  test("both roles without one chosen; a region without readings says so", async () => {
    const hub = discordHub();
    const embed = embedOf(await answer(hub, commandInteraction("when", [{ name: "region", value: "ap-northeast-1" }])));
    expect(embed.fields?.map((f) => f.name)).toEqual([
      "Best hours for a Survivor bonus \\(Asia/Tokyo\\)",
      "Best hours for a Killer bonus \\(Asia/Tokyo\\)",
      "\u200b",
      "Next Survivor bonus expected",
      "Next Killer bonus expected",
      "\u200b",
    ]);
    expect(embed.fields?.map((f) => f.value)).toEqual(["Not enough readings yet to say.", "Not enough readings yet to say.", "\u200b", "None expected in the next 24 hours.", "None expected in the next 24 hours.", "\u200b"]);
  });
});

describe("/events", () => {
  test("the event in force and the coming ones", async () => {
    const hub = discordHub();
    const agent = addAgent(hub, "eu-central-1");
    const day = 86_400_000;
    const now = Date.now();
    const iso = (t: number) => new Date(t).toISOString();
    const report = {
      events: [
        { key: "now", label: "Bloodhunt", multiplier: 2, startsAt: iso(now - day), endsAt: iso(now + day) },
        { key: "later", label: "Anniversary", multiplier: 3, startsAt: iso(now + 5 * day), endsAt: iso(now + 7 * day) },
      ],
    };
    expect((await call(hub, "POST", "/api/v1/agent/events", { body: report, headers: { authorization: `Bearer ${agent.token}` } })).status).toBe(204);
    const embed = embedOf(await answer(hub, commandInteraction("events")));
    expect(embed.title).toBe("Bloodpoint events");
    expect(embed.fields?.map((f) => f.name)).toEqual(["In force", "Coming"]);
    expect(embed.fields?.[0]?.value).toMatch(/^Bloodhunt: ×2 bloodpoints · → <t:\d+:f> \(<t:\d+:R>\)$/);
    expect(embed.fields?.[1]?.value).toMatch(/^Anniversary: ×3 bloodpoints · <t:\d+:f> → <t:\d+:f>$/);
    const none = embedOf(await answer(discordHub(), commandInteraction("events")));
    expect(none.description).toBe("No event is in force or announced.");
  });
});

describe("autocomplete", () => {
  test("regions matched by id, name or short name, at most 25, in the reader's language", async () => {
    const hub = discordHub();
    const choices = async (typed: string, locale = "en-US") => (await answer(hub, autocompleteInteraction("bonus", typed, locale))).data?.choices ?? [];
    expect((await answer(hub, autocompleteInteraction("bonus", "frank"))).type).toBe(8);
    expect(await choices("frank")).toEqual([{ name: "EU Central (Frankfurt)", value: "eu-central-1" }]);
    expect((await choices("ap-northeast")).map((c) => c.value)).toEqual(["ap-northeast-1", "ap-northeast-2"]);
    expect((await choices("sao paulo")).map((c) => c.value)).toEqual(["sa-east-1"]);
    const all = await choices("");
    expect(all.length).toBe(Math.min(25, hub.ctx.config.catalogue.regions.length));
    expect(await choices("deutschland", "de")).toEqual([{ name: "EU Central (Frankfurt) · Deutschland", value: "eu-central-1" }]);
    expect((await choices("日本", "ja")).map((c) => c.value)).toEqual(["ap-northeast-1"]);
    expect(await choices("zzz")).toEqual([]);
  });

  test("never more than 25 choices, however many regions the operator adds", async () => {
    const hub = discordHub();
    const many = Array.from({ length: 40 }, (_, i) => ({ id: `xx-extra-${i + 1}`, name: `Extra ${i + 1}`, tz: "UTC", flag: "", short: `Extra ${i + 1}`, country: null, zones: [], areas: [], latencyHost: "x" }));
    const view = { ...hub.ctx.config.catalogue, regions: [...hub.ctx.config.catalogue.regions, ...many] };
    const { regionChoices } = await import("../../src/discord/interactions.ts");
    expect(regionChoices(view.regions.map((r) => ({ ...r, shortName: r.name })), "", "en")).toHaveLength(25);
    expect(regionChoices(view.regions.map((r) => ({ ...r, shortName: r.name })), "extra", "en")).toHaveLength(25);
  });
});

describe("languages", () => {
  test("the interaction's locale picks the catalogue; an unknown one is English", async () => {
    const hub = await busyHub();
    const german = await answer(hub, commandInteraction("bonus", [{ name: "region", value: "eu-central-1" }], "de"));
    expect(embedOf(german).fields?.map((f) => f.name)).toEqual(["Bonus als Überlebender", "Bonus als Killer", "Aktualisiert"]);
    expect(german.data?.components?.[0]?.components[0]?.label).toBe("Aktualisieren");
    const latam = await answer(hub, commandInteraction("bonus", [], "es-419"));
    expect(embedOf(latam).title).toBe("Steam: bonificaciones ahora");
    const chinese = await answer(hub, commandInteraction("events", [], "zh-TW"));
    expect(embedOf(chinese).title).toBe("血點活動");
    const vietnamese = await answer(hub, commandInteraction("events", [], "vi"));
    expect(embedOf(vietnamese).title).toBe("Bloodpoint events");
  });
});

describe("requireAuth", () => {
  test("commands get an ephemeral sentence unless DISCORD_ALLOW_WITH_REQUIRE_AUTH=true; PING is always answered", async () => {
    const closed = await busyHub({ REQUIRE_AUTH: "true" });
    expect(await answer(closed, { type: 1 })).toEqual({ type: 1 });
    const refused = await answer(closed, commandInteraction("bonus"));
    expect(refused.data?.flags).toBe(64);
    expect(refused.data?.content).toBe("This hub asks people to sign in before they read its data, so it does not answer here.");
    expect((await answer(closed, buttonInteraction("refresh:Windows:*"))).data?.flags).toBe(64);
    expect((await answer(closed, autocompleteInteraction("bonus", "frank"))).data?.choices).toEqual([]);
    const open = await busyHub({ REQUIRE_AUTH: "true", DISCORD_ALLOW_WITH_REQUIRE_AUTH: "true" });
    expect(embedOf(await answer(open, commandInteraction("bonus"))).title).toBe("Steam: bonuses now");
  });
});

describe("admin summary", () => {
  test("says whether Discord answers, the endpoint, the invite and the last interaction", async () => {
    const { hub, admin } = await adminHub(discordEnv(keys));
    const before = (await admin.json<Record<string, unknown>>("GET", "/api/v1/admin/discord")).body;
    expect(before).toEqual({
      configured: true,
      answersCommands: true,
      endpointUrl: `${hub.ctx.config.origin}/api/v1/discord/interactions`,
      inviteUrl: "https://discord.com/oauth2/authorize?client_id=1300000000000000001&scope=applications.commands",
      lastInteractionAt: null,
    });
    await answer(hub, { type: 1 });
    const after = (await admin.json<{ lastInteractionAt: number }>("GET", "/api/v1/admin/discord")).body;
    expect(after.lastInteractionAt).toBeGreaterThan(Date.now() - 60_000);
    await admin.json("PATCH", "/api/v1/admin/settings", { requireAuth: true });
    expect((await admin.json<Record<string, unknown>>("GET", "/api/v1/admin/discord")).body).toMatchObject({ configured: true, answersCommands: false });
    const off = await adminHub();
    expect((await off.admin.json<Record<string, unknown>>("GET", "/api/v1/admin/discord")).body).toMatchObject({ configured: false, answersCommands: false, inviteUrl: null });
  });
});
