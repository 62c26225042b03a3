/** Public reads of the live data: site meta, incentives and coverage (under the read gate). */
import type { TSchema } from "@sinclair/typebox";
import { Elysia, t } from "elysia";
import type { Config } from "../config/load.ts";
import { OPTIONS, type OptionTable, type Settings } from "../config/options.ts";
import type { HubContext } from "../context.ts";
import { PLATFORMS } from "../domain/catalogue.ts";
import type { Access } from "../http/access.ts";
import type { IncentivesReplies } from "../http/incentives.ts";
import { IncentivesPayloadSchema, PlatformParams, problems, readCacheControl, requirePlatform } from "../http/schemas.ts";
import { platformSchema } from "../http/vocabularies.ts";

interface PublicSetting {
  readonly key: keyof Settings;
  /** Its field in /meta. */
  readonly field: string;
  readonly schema: TSchema;
}

/** The settings the table marks public, in the table's order, each with its field and schema (described by its help). */
export function publicSettings(table: OptionTable): PublicSetting[] {
  return (Object.keys(table) as (keyof Settings)[]).flatMap((key) => {
    const option = table[key];
    const mark = option.public;
    if (!mark) return [];
    if (option.secret) throw new Error(`The setting ${key} is a secret and cannot be public.`);
    const description = option.help;
    const schemas: Record<typeof mark.type, () => TSchema> = {
      boolean: () => t.Boolean({ description }),
      integer: () => t.Integer({ description }),
      string: () => t.String({ description }),
      "string or null": () => t.Nullable(t.String(), { description }),
    };
    return [{ key, field: mark.as ?? key, schema: schemas[mark.type]() }];
  });
}

function publicValues(config: Config, settings: readonly PublicSetting[]): Record<string, unknown> {
  return Object.fromEntries(settings.map((s) => [s.field, config[s.key]]));
}

function latencyHosts(config: Config) {
  return config.latencyProbes ? config.catalogue.regions.map((r) => ({ region: r.id, host: r.latencyHost })) : [];
}

/** The body of /meta: what the board's first paint is rendered with too (src/share/first-paint.tsx). */
export function siteMeta(ctx: Pick<HubContext, "config" | "agents">, published: readonly PublicSetting[]) {
  return {
    platforms: PLATFORMS.filter((p) => ctx.agents.coveredRegions(p).size > 0),
    ...publicValues(ctx.config, published),
    latencyHosts: latencyHosts(ctx.config),
  };
}

/** SiteMeta: the platforms served, every public setting (the example shows this hub's own values) and the hosts to time. */
function siteMetaSchema(config: Config, settings: readonly PublicSetting[]) {
  return t.Object(
    {
      platforms: t.Array(platformSchema(), { description: "Platforms with at least one enabled agent, in display order" }),
      ...Object.fromEntries(settings.map((s) => [s.field, s.schema])),
      latencyHosts: t.Array(
        t.Object({ region: t.String(), host: t.String({ description: "Host name, timed over HTTPS" }) }),
        {
          description:
            "Every catalogue region's host that the game's matchmaking times, for a client to find the viewer's closest region; empty when LATENCY_PROBES is off (the web app's CSP then allows none)",
        },
      ),
    },
    {
      title: "SiteMeta",
      examples: [{ platforms: ["Windows", "EGS"], ...publicValues(config, settings), latencyHosts: latencyHosts(config).slice(0, 1) }],
    },
  );
}

const CoverageSchema = t.Object(
  {
    platform: platformSchema(),
    regions: t.Array(
      t.Object({
        region: t.String(),
        displayName: t.String(),
        flag: t.String(),
        agents: t.Integer({ description: "Enabled agents covering the region" }),
        freshAgents: t.Integer({ description: "Of those, agents whose newest reading is younger than the stale threshold" }),
      }),
    ),
  },
  { title: "CoveragePayload" },
);

/** `table` is the settings table whose public settings /meta shows: the hub's own, or a test's copy. */
export function publicRoutes(ctx: HubContext, access: Access, incentives: IncentivesReplies, table: OptionTable = OPTIONS) {
  const { config, live, agents, settings } = ctx;
  const published = publicSettings(table);
  return new Elysia({ name: "routes/public", prefix: "/api/v1" })
    .use(access.plugin)
    .get(
      "/meta",
      ({ set }) => {
        set.headers["cache-control"] = readCacheControl(settings.get().requireAuth, 120);
        return siteMeta(ctx, published);
      },
      {
        access: "public-read",
        response: { 200: siteMetaSchema(config, published), ...problems(401) },
        detail: { tags: ["incentives"], summary: "Site meta", description: "What a dashboard needs to know about this hub." },
      },
    )
    .get(
      "/platforms/:platform/incentives",
      ({ params, request }) => incentives.reply(requirePlatform(params.platform), request),
      {
        access: "public-read",
        params: PlatformParams,
        headers: t.Object({ "if-none-match": t.Optional(t.String()) }),
        response: { 200: IncentivesPayloadSchema, 304: t.Void({ description: "Not modified (If-None-Match matched the ETag)" }), ...problems(401, 404) },
        detail: {
          tags: ["incentives"],
          summary: "Current incentives",
          description: "The live incentives of one platform: the same payload as each message of the stream. Carries an ETag; send If-None-Match to get 304.",
          "x-response-headers": { 200: ["ETag"], 304: ["ETag", "Cache-Control"] },
        },
      },
    )
    .get(
      "/platforms/:platform/coverage",
      ({ params, set }) => {
        const platform = requirePlatform(params.platform);
        set.headers["cache-control"] = readCacheControl(settings.get().requireAuth, 30);
        return {
          platform,
          regions: config.catalogue.regions.map((region) => {
            const group = agents.group(platform, region.id);
            return {
              region: region.id,
              displayName: region.name,
              flag: region.flag,
              agents: group.length,
              freshAgents: group.filter((agent) => live.isAgentFresh(agent.id)).length,
            };
          }),
        };
      },
      {
        access: "public-read",
        params: PlatformParams,
        response: { 200: CoverageSchema, ...problems(401, 404) },
        detail: { tags: ["incentives"], summary: "Agent coverage", description: "How many agents cover each catalogue region, and how many of them are fresh." },
      },
    );
}
