/** Admin: runtime settings and presence (with what GRIP proxy nodes report). */
import { Elysia, t } from "elysia";
import { actorOf, checkRoles, type Accounts } from "../../auth/accounts.ts";
import type { HubContext } from "../../context.ts";
import { audit } from "../../db/audit.ts";
import { AdminSettingsSchema } from "../../http/account-schemas.ts";
import type { Access } from "../../http/access.ts";
import { HttpProblem } from "../../domain/problem.ts";
import { problems } from "../../http/schemas.ts";
import { RUNTIME_KEYS, RUNTIME_VARIABLES, type RuntimeValues } from "../../settings.ts";

export function adminSettingsRoutes(ctx: HubContext, access: Access, accounts: Accounts) {
  const { settings, db, now } = ctx;
  const proxied = () => {
    if (!ctx.gripNodes) return null;
    const nodes = ctx.gripNodes.snapshot().map((node) => ({ ...node, readAt: node.readAt === null ? null : new Date(node.readAt).toISOString() }));
    return { viewers: nodes.reduce((sum, node) => sum + (node.viewers ?? 0), 0), unknownNodes: nodes.filter((node) => node.viewers === null).length, nodes };
  };
  const body = () => ({ ...settings.get(), mfaEnforcedRoles: [...settings.get().mfaEnforcedRoles], locked: settings.locked() });
  return new Elysia({ name: "routes/admin/settings", prefix: "/api/v1/admin" })
    .use(access.plugin)
    .get("/settings", body, {
      access: "admin",
      response: { 200: AdminSettingsSchema, ...problems(401, 403) },
      detail: { tags: ["admin-settings"], summary: "Runtime settings", description: "requireAuth, enableApiKeys and mfaEnforcedRoles, and which of them the operator locked." },
    })
    .patch(
      "/settings",
      ({ request, body: patch }) => {
        const locked = settings.locked();
        for (const key of RUNTIME_KEYS) {
          if (patch[key] !== undefined && locked.includes(key)) {
            throw new HttpProblem(409, `${key} is set by the operator (${RUNTIME_VARIABLES[key]}) and cannot be changed here.`);
          }
        }
        const changes: Partial<RuntimeValues> = {
          ...(patch.requireAuth === undefined ? {} : { requireAuth: patch.requireAuth }),
          ...(patch.enableApiKeys === undefined ? {} : { enableApiKeys: patch.enableApiKeys }),
          ...(patch.mfaEnforcedRoles === undefined ? {} : { mfaEnforcedRoles: checkRoles(patch.mfaEnforcedRoles, "body.mfaEnforcedRoles") }),
        };
        if (Object.keys(changes).length > 0) {
          settings.update(changes, { policyChosen: changes.mfaEnforcedRoles !== undefined });
          audit(db.orm, actorOf(access.userOf(request)), "settings.update", "settings", changes, now());
        }
        return body();
      },
      {
        access: "admin",
        body: t.Object({
          requireAuth: t.Optional(t.Boolean()),
          enableApiKeys: t.Optional(t.Boolean()),
          mfaEnforcedRoles: t.Optional(t.Array(t.String({ maxLength: 32 }), { maxItems: 8 })),
        }),
        response: { 200: AdminSettingsSchema, ...problems(400, 401, 403, 409) },
        detail: { tags: ["admin-settings"], summary: "Change runtime settings", description: "Takes effect on the next request. A locked field is refused with 409 naming its variable; unknown roles are 400." },
      },
    )
    .get("/presence", () => ({ online: accounts.presence.online(ctx.streams.viewers()), proxied: proxied() }), {
      access: "admin",
      response: { 200: PresenceSchema, ...problems(401, 403) },
      detail: {
        tags: ["admin-settings"],
        summary: "Viewers online",
        description:
          "Unique client IPs with an open stream or a read in the last 45 s. With GRIP_STATS_URL set, `proxied` adds the connections each GRIP proxy node holds, as the node last reported them (read every 5 s); a node that does not answer keeps its last count for 30 s, then is unknown (`viewers` null), never counted as zero.",
      },
    });
}

const NodeViewersSchema = t.Object(
  {
    node: t.String({ description: "host:port of the node's publish endpoint (GRIP_URL)" }),
    viewers: t.Union([t.Integer({ minimum: 0 }), t.Null()], { description: "Connections the node holds (Pushpin's connection_connected: every open client connection, all platforms); null when unknown" }),
    readAt: t.Union([t.String({ format: "date-time" }), t.Null()], { description: "When `viewers` was read; null when it is unknown" }),
    problem: t.Union([t.String(), t.Null()], { description: "Why the last read failed (no answer, a refusal, no connection_connected gauge); null when it succeeded" }),
  },
  { title: "NodeViewers" },
);

const PresenceSchema = t.Object(
  {
    online: t.Integer({ description: "Unique viewers with an open stream or a read in the last 45 s" }),
    proxied: t.Union(
      [
        t.Object({
          viewers: t.Integer({ minimum: 0, description: "Connections held by the nodes whose count is known" }),
          unknownNodes: t.Integer({ minimum: 0, description: "Nodes whose count is unknown, so not in `viewers`" }),
          nodes: t.Array(NodeViewersSchema),
        }),
        t.Null(),
      ],
      { description: "What the GRIP proxy nodes report; null unless GRIP_STATS_URL is set" },
    ),
  },
  {
    title: "Presence",
    examples: [
      { online: 42, proxied: null },
      { online: 42, proxied: { viewers: 1830, unknownNodes: 1, nodes: [{ node: "10.0.0.11:5561", viewers: 1830, readAt: "2026-05-01T12:00:00.000Z", problem: null }, { node: "10.0.0.12:5561", viewers: null, readAt: null, problem: "unreachable" }] } },
    ],
  },
);
