/** Public reads of the live data: site meta, incentives and coverage (under the read gate). */
import { Elysia, t } from "elysia";
import { OPTIONS, type OptionTable } from "../config/options.ts";
import type { HubContext } from "../context.ts";
import type { Access } from "../http/access.ts";
import type { IncentivesReplies } from "../http/incentives.ts";
import { IncentivesPayloadSchema, PlatformParams, problems, readCacheControl, requirePlatform } from "../http/schemas.ts";
import { platformSchema } from "../http/vocabularies.ts";
import { publicSettings, siteMeta, siteMetaSchema } from "../share/meta.ts";

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
