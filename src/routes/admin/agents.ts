/** Admin: agents, their tokens, export/import, and the data they reported. */
import { Elysia, t } from "elysia";
import { actorOf } from "../../auth/accounts.ts";
import type { AgentAdmin } from "../../admin/agents.ts";
import type { HubContext } from "../../context.ts";
import type { Access } from "../../http/access.ts";
import { HttpProblem } from "../../domain/problem.ts";
import { PLATFORMS, type Catalogue } from "../../domain/catalogue.ts";
import { LabelSchema, ProviderSchema, regionSchema } from "../../http/field-schemas.ts";
import { stringOf, idParams, integerQuery, PlatformRegionParams, problems, queryInteger, requirePlatform, requireRegion } from "../../http/schemas.ts";
import { agentSourceSchema, eventReportModeSchema, platformSchema, providerSchema } from "../../http/vocabularies.ts";
import { text } from "../../http/text.ts";
import { TEXT_LIMITS } from "../../domain/text-limits.ts";

const IdParams = idParams("Agent");
const DryRun = t.Optional(t.Union([t.Literal("true"), t.Literal("false")], { description: "true: count what would be deleted and delete nothing" }));
const Removed = t.Object({ removed: t.Integer({ minimum: 0, description: "Readings deleted, or with dryRun those that would be" }) }, { examples: [{ removed: 12 }] });
const Cadence = t.Union([t.String({ maxLength: 200 }), t.Number({ exclusiveMinimum: 0 }), t.Null()], {
  description:
    "Seconds or a cadence expression such as `%refreshTime% * 1.5` (numbers, + - * / and parentheses, `%refreshTime%`/`%auto%`; no exponent notation); " +
    "it must give more than 0 seconds for every refresh time from 1 s to 6 h, else 400. null clears the override",
});
const EVENT_REPORTS_HELP =
  "accepted (the default): the agent's event reports set the agents' schedule like any agent's; ignored: its reports still answer 204 but are dropped. " +
  "Switching to ignored, like disabling or deleting the agent, withdraws the schedule entries that only this agent reported " +
  "(an entry another agent also reported stays, as do admin events)";
const EXAMPLE_HASH = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08";

export const AgentSchema = t.Object(
  {
    id: t.Integer(),
    enabled: t.Boolean(),
    label: t.Nullable(t.String()),
    platform: platformSchema("Decided by the provider"),
    region: t.String(),
    provider: providerSchema(),
    provisionId: t.Nullable(t.String({ description: "The id given in the configuration, for provisioned agents" })),
    source: agentSourceSchema(),
    pollMin: t.Nullable(t.String({ description: "The agent's own poll minimum (seconds or expression), or null for the default" })),
    pollMax: t.Nullable(t.String()),
    eventReports: eventReportModeSchema(EVENT_REPORTS_HELP),
    readings: t.Integer({ description: "Stored readings of this agent" }),
    lastReadingAt: t.Nullable(t.Integer({ description: "measuredAt of its newest reading (epoch ms)" })),
  },
  {
    title: "Agent",
    examples: [
      { id: 7, enabled: true, label: "Attic PC", platform: "Windows", region: "eu-west-1", provider: "steam", provisionId: null, source: "manual", pollMin: null, pollMax: null, eventReports: "accepted", readings: 1234, lastReadingAt: 1795301143000 },
    ],
  },
);

export const ExportedAgentSchema = t.Object(
  {
    provisionId: t.Nullable(t.String()),
    tokenHash: t.String({ pattern: "^[0-9a-fA-F]{64}$", description: "SHA-256 of the agent's token (hex); the import key" }),
    region: t.String(),
    provider: providerSchema(),
    platform: platformSchema(),
    label: t.Nullable(t.String()),
    enabled: t.Boolean(),
    source: agentSourceSchema(),
    pollMin: t.Nullable(t.String()),
    pollMax: t.Nullable(t.String()),
  },
  {
    title: "ExportedAgent",
    examples: [{ provisionId: null, tokenHash: EXAMPLE_HASH, region: "eu-west-1", provider: "steam", platform: "Windows", label: "Attic PC", enabled: true, source: "manual", pollMin: null, pollMax: null }],
  },
);

const ImportRowSchema = t.Object(
  {
    tokenHash: ExportedAgentSchema.properties.tokenHash,
    region: t.String(),
    provider: stringOf(providerSchema()),
    platform: t.Optional(stringOf(platformSchema(), "If given, must match the provider")),
    provisionId: t.Optional(t.Nullable(t.String())),
    label: t.Optional(t.Nullable(t.String({ maxLength: TEXT_LIMITS.label }))),
    enabled: t.Optional(t.Boolean()),
    source: t.Optional(stringOf(agentSourceSchema(), "imported when not given")),
    pollMin: t.Optional(t.Nullable(t.String())),
    pollMax: t.Optional(t.Nullable(t.String())),
  },
  { title: "ImportedAgent" },
);

const ImportRequestSchema = t.Object(
  { agents: t.Array(ImportRowSchema) },
  {
    title: "AgentImport",
    description: "Rows as GET /agents/export gives them. Upserted by tokenHash; a row that cannot be used is skipped with its reason while the others apply, all in one transaction.",
    examples: [{ agents: [{ tokenHash: EXAMPLE_HASH, region: "eu-west-1", provider: "steam", label: "Attic PC", enabled: true }] }],
  },
);

const bonusBound = (description: string) => t.Optional(integerQuery({ description, minimum: 0, maximum: 1000, examples: [50] }));
const readingFilterQuery = (catalogue: Catalogue) => t.Object({
  region: t.Optional(regionSchema(catalogue, "Only readings of this region")),
  platform: t.Optional(text({ enum: [...PLATFORMS], description: "Only readings of this platform" })),
  from: t.Optional(integerQuery({ description: "measuredAt at or after (epoch ms)", examples: [1_763_661_600_000] })),
  to: t.Optional(integerQuery({ description: "measuredAt at or before (epoch ms)", examples: [1_763_748_000_000] })),
  survivorMin: bonusBound("Survivor bonus at least"),
  survivorMax: bonusBound("Survivor bonus at most"),
  killerMin: bonusBound("Killer bonus at least"),
  killerMax: bonusBound("Killer bonus at most"),
});

/** The filter of a readings deletion, its integers read strictly. */
function readingFilter(query: Readonly<Partial<Record<"region" | "platform" | "from" | "to" | "survivorMin" | "survivorMax" | "killerMin" | "killerMax", string>>>) {
  return {
    region: query.region,
    platform: query.platform,
    from: queryInteger(query.from, "from"),
    to: queryInteger(query.to, "to"),
    survivorMin: queryInteger(query.survivorMin, "survivorMin", { minimum: 0, maximum: 1000 }),
    survivorMax: queryInteger(query.survivorMax, "survivorMax", { minimum: 0, maximum: 1000 }),
    killerMin: queryInteger(query.killerMin, "killerMin", { minimum: 0, maximum: 1000 }),
    killerMax: queryInteger(query.killerMax, "killerMax", { minimum: 0, maximum: 1000 }),
  };
}

export function adminAgentRoutes(ctx: HubContext, access: Access, admin: AgentAdmin) {
  const actor = (request: Request) => actorOf(access.userOf(request));
  const Region = regionSchema(ctx.config.catalogue);
  return new Elysia({ name: "routes/admin/agents", prefix: "/api/v1/admin" })
    .use(access.plugin)
    .get("/agents", () => ({ agents: admin.list() }), {
      access: "admin",
      response: { 200: t.Object({ agents: t.Array(AgentSchema) }), ...problems(401, 403) },
      detail: { tags: ["admin-agents"], summary: "List agents", description: "Every agent with its reading count and newest reading." },
    })
    .post(
      "/agents",
      ({ request, body, set }) => {
        set.status = 201;
        set.headers["cache-control"] = "no-store";
        return admin.create(actor(request), body);
      },
      {
        access: "admin",
        body: t.Object(
          {
            region: Region,
            provider: ProviderSchema,
            label: t.Optional(t.Nullable(LabelSchema)),
          },
          { examples: [{ region: "eu-west-1", provider: "steam", label: "Attic PC" }] },
        ),
        response: { 201: t.Object({ agent: AgentSchema, token: t.String({ description: "The agent's bearer token (86 characters), shown only here" }) }), ...problems(400, 401, 403) },
        detail: { tags: ["admin-agents"], summary: "Create an agent", description: "Answers the agent and its token; only the token's SHA-256 is stored." },
      },
    )
    .get("/agents/export", () => ({ agents: admin.exportAll() }), {
      access: "admin",
      response: { 200: t.Object({ agents: t.Array(ExportedAgentSchema) }), ...problems(401, 403) },
      detail: { tags: ["admin-agents"], summary: "Export agents", description: "Every agent with its token hash (never a raw token), for POST /agents/import elsewhere." },
    })
    .post("/agents/import", ({ request, body }) => admin.importAll(actor(request), body.agents), {
      access: "admin",
      body: t.Object({ agents: t.Array(t.Unknown(), { maxItems: 10_000 }) }),
      response: {
        200: t.Object({
          imported: t.Integer({ description: "Rows inserted or updated" }),
          skipped: t.Array(t.Object({ index: t.Integer({ description: "0-based row index" }), provisionId: t.Nullable(t.String()), reason: t.String() })),
        }, { examples: [{ imported: 3, skipped: [{ index: 1, provisionId: null, reason: "unknown region \"mars-north-1\"" }] }] }),
        ...problems(400, 401, 403),
      },
      detail: { tags: ["admin-agents"], summary: "Import agents", description: ImportRequestSchema.description ?? "", "x-request-body": ImportRequestSchema },
    })
    .patch("/agents/:id", ({ request, params, body }) => ({ agent: admin.update(actor(request), params.id, body) }), {
      access: "admin",
      params: IdParams,
      body: t.Object(
        {
          label: t.Optional(t.Nullable(LabelSchema)),
          provider: t.Optional(ProviderSchema),
          region: t.Optional(Region),
          pollMin: t.Optional(Cadence),
          pollMax: t.Optional(Cadence),
          enabled: t.Optional(t.Boolean({ description: "false also withdraws the schedule entries only this agent reported" })),
          eventReports: t.Optional(eventReportModeSchema(EVENT_REPORTS_HELP)),
          dataMode: t.Optional(
            t.Union([t.Literal("keep"), t.Literal("orphan"), t.Literal("delete")], {
              description: "On a move (region or provider): keep (default; readings stay attributed), orphan (kept, detached) or delete",
            }),
          ),
        },
        { examples: [{ region: "eu-west-2", dataMode: "orphan" }, { pollMin: "%refreshTime% * 2", pollMax: null }, { eventReports: "ignored" }] },
      ),
      response: { 200: t.Object({ agent: AgentSchema }), ...problems(400, 401, 403, 404) },
      detail: { tags: ["admin-agents"], summary: "Change an agent", description: "The old slot's live value is rebuilt from what remains; viewers get the change at once." },
    })
    .delete(
      "/agents/:id",
      ({ request, params, query, set }) => {
        admin.remove(actor(request), params.id, query.dataMode ?? "orphan");
        set.status = 204;
      },
      {
        access: "admin",
        params: IdParams,
        query: t.Object({ dataMode: t.Optional(t.Union([t.Literal("orphan"), t.Literal("delete")], { description: "orphan (default) keeps its readings, detached; delete removes them" })) }),
        response: { 204: t.Void({ description: "Deleted" }), ...problems(400, 401, 403, 404) },
        detail: { tags: ["admin-agents"], summary: "Delete an agent", description: "Its token stops working at once, and the schedule entries only this agent reported are withdrawn." },
      },
    )
    .post(
      "/agents/:id/token",
      ({ request, params, set }) => {
        set.headers["cache-control"] = "no-store";
        return { token: admin.rotateToken(actor(request), params.id) };
      },
      {
        access: "admin",
        params: IdParams,
        response: {
          200: t.Object({ token: t.String({ description: "The new token, shown only here" }) }, { examples: [{ token: "q3Z…86 base64url characters" }] }),
          ...problems(401, 403, 404),
        },
        detail: { tags: ["admin-agents"], summary: "Rotate an agent's token", description: "The old token stops working at once." },
      },
    )
    .get(
      "/platforms/:platform/regions/:region/attribution",
      ({ params }) => ({ attribution: admin.attribution(requirePlatform(params.platform), requireRegion(ctx.config.catalogue, params.region)) }),
      {
        access: "admin",
        params: PlatformRegionParams,
        response: {
          200: t.Object({
            attribution: t.Array(
              t.Object({
                agentId: t.Nullable(t.Integer({ description: "null for orphaned readings" })),
                readings: t.Integer(),
                firstAt: t.Integer({ description: "Oldest measuredAt (epoch ms)" }),
                lastAt: t.Integer({ description: "Newest measuredAt (epoch ms)" }),
              }),
            ),
          }, { examples: [{ attribution: [{ agentId: 7, readings: 8640, firstAt: 1794700000000, lastAt: 1795301143000 }, { agentId: null, readings: 12, firstAt: 1794000000000, lastAt: 1794100000000 }] }] }),
          ...problems(401, 403, 404),
        },
        detail: { tags: ["admin-data"], summary: "Who reported a region", description: "Stored readings of one (platform, region) grouped by agent." },
      },
    )
    .delete(
      "/agents/:id/readings",
      ({ request, params, query }) => {
        return { removed: admin.deleteReadings(actor(request), params.id, readingFilter(query), query.dryRun === "true") };
      },
      {
        access: "admin",
        params: IdParams,
        query: t.Object({ ...readingFilterQuery(ctx.config.catalogue).properties, dryRun: DryRun }),
        response: { 200: Removed, ...problems(400, 401, 403, 404) },
        detail: {
          tags: ["admin-data"],
          summary: "Delete an agent's readings",
          description: "Only readings matching every given filter; live values are rebuilt after. With dryRun=true nothing is deleted and `removed` says how many would be.",
        },
      },
    )
    .delete("/readings/orphans", ({ request, query }) => ({ removed: admin.deleteOrphans(actor(request), query.dryRun === "true") }), {
      access: "admin",
      query: t.Object({ dryRun: DryRun }),
      response: { 200: Removed, ...problems(400, 401, 403) },
      detail: {
        tags: ["admin-data"],
        summary: "Delete orphaned readings",
        description: "Readings no longer attributed to any agent; live values are rebuilt after. With dryRun=true nothing is deleted and `removed` says how many would be.",
      },
    });
}
