/** Public settings (issue 27): an option marked public in the table reaches GET /api/v1/meta, reply and schema, by itself. */
import { describe, expect, test } from "bun:test";
import { renderSettingsTable } from "../../src/config/help.ts";
import { OPTIONS, type OptionTable } from "../../src/config/options.ts";
import { openDatabase } from "../../src/db/open.ts";
import { createHub, type Hub } from "../../src/hub.ts";
import { createLogger } from "../../src/log.ts";
import { call, json, testConfig, testHub } from "../helpers.ts";

type Json = Record<string, unknown>;

function hubWith(table: OptionTable, env: Record<string, string> = {}): Hub {
  return createHub(testConfig([], env), { db: openDatabase(":memory:"), log: createLogger("error", () => {}), settingsTable: table });
}

async function siteMetaSchema(hub: Hub): Promise<{ properties: Record<string, Json>; required: string[] }> {
  const doc = await json<{ components: { schemas: Record<string, { properties: Record<string, Json>; required: string[] }> } }>(await call(hub, "GET", "/openapi.json"));
  const schema = doc.components.schemas.SiteMeta;
  if (!schema) throw new Error("SiteMeta is missing from the description");
  return schema;
}

describe("public settings in GET /api/v1/meta", () => {
  test("every setting the table marks public is in the reply and the schema, under its field, described by its help", async () => {
    const hub = testHub({ env: { CONTACT_EMAIL: "ops@example.org", PAGE_SIZE: "33" } });
    const reply = await json(await call(hub, "GET", "/api/v1/meta"));
    const schema = await siteMetaSchema(hub);
    const marked = Object.entries(OPTIONS).filter(([, option]) => option.public !== undefined);
    expect(marked.length).toBeGreaterThan(0);
    const config = hub.ctx.config as unknown as Json;
    for (const [key, option] of marked) {
      const field = option.public?.as ?? key;
      expect({ field, value: reply[field] }).toEqual({ field, value: config[key] });
      expect({ field, description: schema.properties[field]?.description }).toEqual({ field, description: option.help });
      expect(schema.required).toContain(field);
    }
    expect(reply.contactEmail).toBe("ops@example.org");
    expect(reply.pageSize).toBe(33);
  });

  test("marking one more setting public in a copy of the table publishes it, with no other edit", async () => {
    const table: OptionTable = {
      ...OPTIONS,
      rpName: { ...OPTIONS.rpName, public: { type: "string" } },
      sessionTtlHours: { ...OPTIONS.sessionTtlHours, public: { type: "integer", as: "sessionHours" } },
      rpId: { ...OPTIONS.rpId, public: { type: "string or null" } },
    };
    const plain = await json(await call(testHub(), "GET", "/api/v1/meta"));
    expect(plain).not.toContainKeys(["rpName", "sessionHours", "rpId"]);

    const hub = hubWith(table, { RP_NAME: "Fog Watch", SESSION_TTL_HOURS: "12" });
    const reply = await json(await call(hub, "GET", "/api/v1/meta"));
    expect(reply).toMatchObject({ rpName: "Fog Watch", sessionHours: 12, rpId: "localhost" });
    expect(Object.keys(reply).sort()).toEqual([...Object.keys(plain), "rpId", "rpName", "sessionHours"].sort());
    const schema = await siteMetaSchema(hub);
    expect(schema.properties.rpName).toEqual({ type: "string", description: OPTIONS.rpName.help });
    expect(schema.properties.sessionHours).toEqual({ type: "integer", description: OPTIONS.sessionTtlHours.help });
    expect(schema.properties.rpId).toMatchObject({ description: OPTIONS.rpId.help, anyOf: [{ type: "string" }, { type: "null" }] });
    expect(schema.required).toContain("sessionHours");
  });

  test("a secret can never be public: the hub refuses to build /meta with one", () => {
    const table: OptionTable = { ...OPTIONS, metricsToken: { ...OPTIONS.metricsToken, public: { type: "string or null" } } };
    expect(() => hubWith(table)).toThrow("The setting metricsToken is a secret and cannot be public.");
  });

  test("the settings reference and --help say which settings are public, and under which field", () => {
    const table = renderSettingsTable();
    expect(table).toContain("Show the contribute page in clients (public: contributeEnabled in GET /api/v1/meta)");
    expect(table).toContain("| Listen port |");
  });
});
