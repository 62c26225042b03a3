/** Admin: whether Discord's slash commands are answered, when the last interaction came, and where to add the commands to a server. */
import { Elysia, t } from "elysia";
import type { HubContext } from "../../context.ts";
import { INTERACTIONS_PATH, inviteUrl } from "../../discord/invite.ts";
import type { Access } from "../../http/access.ts";
import { problems } from "../../http/schemas.ts";

const DiscordSummarySchema = t.Object(
  {
    configured: t.Boolean({ description: "Whether DISCORD_APPLICATION_ID and DISCORD_PUBLIC_KEY are set, so the hub answers Discord at all" }),
    answersCommands: t.Boolean({ description: "Whether commands get answers now: configured, and requireAuth off or DISCORD_ALLOW_WITH_REQUIRE_AUTH=true; otherwise they get a refusal" }),
    endpointUrl: t.String({ format: "uri", description: "The Interactions Endpoint URL to give Discord (ORIGIN/api/v1/discord/interactions)" }),
    inviteUrl: t.Nullable(t.String({ format: "uri", description: "Where a server's manager adds the commands (scope applications.commands); null while Discord is off" })),
    lastInteractionAt: t.Nullable(t.Integer({ description: "When the last verified interaction arrived since the hub started (epoch ms); null for none" })),
  },
  {
    title: "DiscordSummary",
    examples: [
      {
        configured: true,
        answersCommands: true,
        endpointUrl: "https://hub.example.org/api/v1/discord/interactions",
        inviteUrl: "https://discord.com/oauth2/authorize?client_id=1300000000000000000&scope=applications.commands",
        lastInteractionAt: 1_763_747_045_123,
      },
      { configured: false, answersCommands: false, endpointUrl: "https://hub.example.org/api/v1/discord/interactions", inviteUrl: null, lastInteractionAt: null },
    ],
  },
);

export function adminDiscordRoutes(ctx: HubContext, access: Access) {
  const { config } = ctx;
  const configured = config.discordApplicationId !== null && config.discordPublicKey !== null;
  return new Elysia({ name: "routes/admin/discord", prefix: "/api/v1/admin" }).use(access.plugin).get(
    "/discord",
    ({ set }) => {
      set.headers["cache-control"] = "no-store";
      return {
        configured,
        answersCommands: configured && (!ctx.settings.get().requireAuth || config.discordAllowWithRequireAuth),
        endpointUrl: `${config.origin}${INTERACTIONS_PATH}`,
        inviteUrl: config.discordApplicationId === null ? null : inviteUrl(config.discordApplicationId),
        lastInteractionAt: ctx.metrics.lastDiscordAt,
      };
    },
    {
      access: "admin",
      response: { 200: DiscordSummarySchema, ...problems(401, 403) },
      detail: { tags: ["admin-alerts"], summary: "Discord at a glance", description: "Whether the hub answers Discord's slash commands, the endpoint URL to give Discord, the invite URL, and when the last interaction came." },
    },
  );
}
