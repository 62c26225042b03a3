/**
 * POST /api/v1/discord/interactions: Discord's slash commands, answered by
 * the hub. Never behind the read gate or CSRF (Discord cannot sign in); the
 * access rule "signed" leaves the raw body to this route, which has it
 * verified before anything else. The Discord code and its libraries are
 * loaded only by a hub with Discord configured.
 */
import { Elysia, t } from "elysia";
import type { HubContext } from "../context.ts";
import type { DiscordEndpoint, Refusal } from "../discord/endpoint.ts";
import { INTERACTIONS_PATH } from "../discord/invite.ts";
import type { Access } from "../http/access.ts";
import { clientIp } from "../http/client-ip.ts";
import { PendingBody } from "../http/errors.ts";
import { HttpProblem } from "../domain/problem.ts";
import { problems } from "../http/schemas.ts";

/** The same numbers as the endpoint's, repeated here so that this file does not load it. */
const MAX_INTERACTION_BYTES = 64 * 1024;

const BAD_SIGNATURE = "The request's signature does not verify with DISCORD_PUBLIC_KEY.";

/** A new problem for each refusal: an error object is not shared between requests. */
const REFUSALS: Readonly<Record<Refusal, () => HttpProblem>> = {
  missing_signature: () => new HttpProblem(401, "Send Discord's X-Signature-Ed25519 and X-Signature-Timestamp headers; this endpoint answers only Discord."),
  bad_signature: () => new HttpProblem(401, BAD_SIGNATURE),
  stale_timestamp: () => new HttpProblem(401, "X-Signature-Timestamp is more than 5 minutes away from the hub's clock."),
  invalid_body: () => new HttpProblem(400, "The signed body is not a JSON object.", { errors: [{ location: "body", message: "must be a JSON object (a Discord interaction)" }] }),
};

const EXAMPLE_COMMAND = {
  type: 2,
  id: "1311111111111111111",
  application_id: "1300000000000000000",
  token: "aW50ZXJhY3Rpb24…",
  locale: "de",
  data: { id: "1322222222222222222", name: "bonus", type: 1, options: [{ name: "region", type: 3, value: "eu-central-1" }] },
};

const EXAMPLE_ANSWER = {
  type: 4,
  data: {
    embeds: [{ title: "🇩🇪 EU Central (Frankfurt) · Deutschland, Steam", url: "https://hub.example.org/Windows/eu-central-1", description: "**Killer +75 %**", color: 13712187 }],
    components: [{ type: 1, components: [{ type: 2, style: 2, label: "Aktualisieren", custom_id: "refresh:Windows:eu-central-1" }] }],
    allowed_mentions: { parse: [] },
  },
};

const InteractionSchema = t.Object(
  {
    type: t.Integer({ description: "1 PING, 2 a command, 3 a button (Refresh), 4 autocomplete" }),
    locale: t.Optional(t.String({ description: "The reader's language, which the answer is written in (one of the app's 15, English otherwise)" })),
    data: t.Optional(t.Object({}, { description: "The command and its options, or the button's custom_id" })),
  },
  { title: "DiscordInteraction", description: "An interaction as Discord sends it (https://discord.com/developers/docs/interactions/receiving-and-responding).", examples: [EXAMPLE_COMMAND] },
);

const ResponseSchema = t.Object(
  {
    type: t.Integer({ description: "1 PONG, 4 a message, 7 the Refresh button's updated message, 8 autocomplete choices" }),
    data: t.Optional(t.Object({}, { description: "The message (embeds as plain text, a Refresh button, no mentions) or the choices" })),
  },
  { title: "DiscordInteractionResponse", description: "The answer, in the reader's language.", examples: [EXAMPLE_ANSWER] },
);

export function discordRoutes(ctx: HubContext, access: Access) {
  const { config } = ctx;
  const publicKey = config.discordApplicationId === null ? null : config.discordPublicKey;
  // Started as the app is built, so the first interaction does not wait for the module to load.
  const loading: Promise<DiscordEndpoint> | null = publicKey === null ? null : import("../discord/endpoint.ts").then((m) => m.createDiscordEndpoint(ctx, publicKey));
  loading?.catch((error: unknown) => ctx.log.error("the Discord endpoint could not be set up", { error }));
  const refuse = (type: string, refusal: Refusal): never => {
    ctx.metrics.countDiscord(type, refusal);
    throw REFUSALS[refusal]();
  };
  return new Elysia({ name: "routes/discord" }).use(access.plugin).post(
    INTERACTIONS_PATH,
    async ({ body, request, server }) => {
      if (loading === null) throw new HttpProblem(404, "Discord is off on this hub: set DISCORD_APPLICATION_ID and DISCORD_PUBLIC_KEY.");
      const endpoint = await loading;
      if (!endpoint.signed(request.headers)) return refuse("unknown", "missing_signature");
      const raw = body instanceof PendingBody ? await body.raw(MAX_INTERACTION_BYTES, config.bodyTimeoutMs, () => clientIp(request, config.trustedProxies, server)) : new Uint8Array(0);
      const outcome = await endpoint.handle(request.headers, raw);
      if (!outcome.ok) return refuse("unknown", outcome.refusal);
      ctx.metrics.countDiscord(outcome.answer.type, outcome.answer.result, ctx.now());
      return new Response(JSON.stringify(outcome.answer.response), { headers: { "content-type": "application/json", "cache-control": "no-store" } });
    },
    {
      access: "signed",
      response: { 200: ResponseSchema, ...problems(400, 401, 404, 408, 413) },
      detail: {
        tags: ["discord"],
        summary: "Discord interactions",
        description:
          "Discord's Interactions Endpoint URL: give Discord ORIGIN/api/v1/discord/interactions. Every request is verified before anything else: " +
          "X-Signature-Ed25519 over X-Signature-Timestamp followed by the raw body, with DISCORD_PUBLIC_KEY; a missing or wrong signature, or a timestamp more than " +
          "5 minutes from the hub's clock, is a 401 (Discord sends such requests itself to check the endpoint). The body is at most 64 KiB. " +
          "PING (type 1) is answered with PONG; /bonus, /when and /events (type 2) with an embed in the reader's language, the region option's autocomplete (type 4) " +
          "with at most 25 choices, and /bonus's Refresh button (type 3) with the updated message (type 7). An unknown region gets a sentence only its reader sees. " +
          "While requireAuth is on, commands are answered only with DISCORD_ALLOW_WITH_REQUIRE_AUTH=true. 404 while Discord is off.",
        "x-request-body": InteractionSchema,
        "x-problems": {
          401: {
            description: "The signature is missing or wrong, or the timestamp is stale.",
            examples: { badSignature: { summary: "A wrong signature", value: { type: "about:blank", title: "Unauthorized", status: 401, detail: BAD_SIGNATURE } } },
          },
          413: {
            description: `An interaction's body is at most ${MAX_INTERACTION_BYTES} bytes (64 KiB).`,
            examples: { tooLarge: { summary: "A body over 64 KiB", value: { type: "about:blank", title: "Content Too Large", status: 413, detail: `The request body is larger than the limit of ${MAX_INTERACTION_BYTES} bytes.` } } },
          },
        },
      },
    },
  );
}
