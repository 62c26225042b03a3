/** Admin: runtime settings and presence. */
import { Elysia, t } from "elysia";
import { actorOf, checkRoles, type Accounts } from "../../auth/accounts.ts";
import type { HubContext } from "../../context.ts";
import { audit } from "../../db/audit.ts";
import { AdminSettingsSchema } from "../../http/account-schemas.ts";
import type { Access } from "../../http/access.ts";
import { HttpProblem } from "../../http/problem.ts";
import { problems } from "../../http/schemas.ts";
import { RUNTIME_KEYS, RUNTIME_VARIABLES, type RuntimeValues } from "../../settings.ts";

export function adminSettingsRoutes(ctx: HubContext, access: Access, accounts: Accounts) {
  const { settings, db, now } = ctx;
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
    .get("/presence", () => ({ online: accounts.presence.online(ctx.streams.viewers()) }), {
      access: "admin",
      response: { 200: t.Object({ online: t.Integer({ description: "Unique viewers with an open stream or a read in the last 45 s" }) }, { title: "Presence", examples: [{ online: 42 }] }), ...problems(401, 403) },
      detail: { tags: ["admin-settings"], summary: "Viewers online", description: "Unique client IPs with an open stream or a read in the last 45 s." },
    });
}
