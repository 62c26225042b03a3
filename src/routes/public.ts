/** Public reads of the live data: site meta, incentives and coverage (under the read gate). */
import { Elysia, t } from "elysia";
import type { HubContext } from "../context.ts";
import { latencyHost, PLATFORMS } from "../domain/catalogue.ts";
import type { Access } from "../http/access.ts";
import type { IncentivesReplies } from "../http/incentives.ts";
import { IncentivesPayloadSchema, PlatformParams, problems, readCacheControl, requirePlatform } from "../http/schemas.ts";
import { platformSchema } from "../http/vocabularies.ts";

const SiteMetaSchema = t.Object(
  {
    platforms: t.Array(platformSchema(), { description: "Platforms with at least one enabled agent, in display order" }),
    contactEmail: t.Nullable(t.String()),
    discordUrl: t.Nullable(t.String()),
    matrixUrl: t.Nullable(t.String()),
    agentSetupUrl: t.String(),
    contributeEnabled: t.Boolean(),
    pageSize: t.Integer(),
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
    examples: [
      { platforms: ["Windows", "EGS"], contactEmail: null, discordUrl: null, matrixUrl: null, agentSetupUrl: "http://localhost:3000/contribute/agents", contributeEnabled: false, pageSize: 20, latencyHosts: [{ region: "eu-west-1", host: "gamelift.eu-west-1.amazonaws.com" }] },
    ],
  },
);

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

export function publicRoutes(ctx: HubContext, access: Access, incentives: IncentivesReplies) {
  const { config, live, agents, settings } = ctx;
  return new Elysia({ name: "routes/public", prefix: "/api/v1" })
    .use(access.plugin)
    .get(
      "/meta",
      ({ set }) => {
        set.headers["cache-control"] = readCacheControl(settings.get().requireAuth, 120);
        return {
          platforms: PLATFORMS.filter((p) => agents.coveredRegions(p).size > 0),
          contactEmail: config.contactEmail,
          discordUrl: config.discordUrl,
          matrixUrl: config.matrixUrl,
          agentSetupUrl: config.agentSetupUrl,
          contributeEnabled: config.contribute,
          pageSize: config.pageSize,
          latencyHosts: config.latencyProbes ? config.catalogue.regions.map((r) => ({ region: r.id, host: latencyHost(r.id) })) : [],
        };
      },
      {
        access: "public-read",
        response: { 200: SiteMetaSchema, ...problems(401) },
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
