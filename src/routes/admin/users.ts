/** Admin: users. */
import { Elysia, t } from "elysia";
import { actorOf } from "../../auth/accounts.ts";
import type { UserAdmin } from "../../auth/admin-users.ts";
import { Role, UserSchema } from "../../http/account-schemas.ts";
import type { Access } from "../../http/access.ts";
import { idParams, problems } from "../../http/schemas.ts";
import { EmailSchema, NameSchema, PasswordSchema, UsernameSchema } from "../../http/field-schemas.ts";

const IdParams = idParams("User");

export function adminUserRoutes(access: Access, admin: UserAdmin) {
  return new Elysia({ name: "routes/admin/users", prefix: "/api/v1/admin/users" })
    .use(access.plugin)
    .get(
      "", () => ({ users: admin.list() }), {
      access: "admin",
      response: { 200: t.Object({ users: t.Array(UserSchema) }), ...problems(401, 403) },
      detail: { tags: ["admin-users"], summary: "List users", description: "Every user, oldest first." },
    })
    .post(
      "",
      async ({ request, body, set }) => {
        const user = await admin.create(actorOf(access.userOf(request)), {
          username: body.username,
          role: body.role,
          password: body.password ?? null,
          email: body.email ?? null,
          name: body.name ?? null,
        });
        set.status = 201;
        return { user };
      },
      {
        access: "admin",
        body: t.Object({
          username: UsernameSchema,
          role: Role,
          password: t.Optional(PasswordSchema),
          email: t.Optional(t.Nullable(EmailSchema)),
          name: t.Optional(t.Nullable(NameSchema)),
        }),
        response: { 201: t.Object({ user: UserSchema }), ...problems(400, 401, 403, 409) },
        detail: {
          tags: ["admin-users"],
          summary: "Create a user",
          description: "409 if the username exists. Without a password the user cannot sign in until one is set.",
        },
      },
    )
    .patch(
      "/:id",
      async ({ request, params, body }) => ({ user: await admin.update(actorOf(access.userOf(request)), params.id, body) }),
      {
        access: "admin",
        params: IdParams,
        body: t.Object({
          enabled: t.Optional(t.Boolean()),
          role: t.Optional(Role),
          name: t.Optional(t.Nullable(NameSchema)),
          email: t.Optional(t.Nullable(EmailSchema)),
          password: t.Optional(PasswordSchema),
        }),
        response: { 200: t.Object({ user: UserSchema }), ...problems(400, 401, 403, 404, 409) },
        detail: {
          tags: ["admin-users"],
          summary: "Change a user",
          description: "Disabling ends the user's sessions and makes their keys inert at once. The last enabled admin cannot be disabled or demoted (409).",
        },
      },
    )
    .delete(
      "/:id",
      ({ request, params, set }) => {
        admin.remove(actorOf(access.userOf(request)), params.id);
        set.status = 204;
      },
      {
        access: "admin",
        params: IdParams,
        response: { 204: t.Void({ description: "Deleted" }), ...problems(401, 403, 404, 409) },
        detail: { tags: ["admin-users"], summary: "Delete a user", description: "Also removes their sessions, keys, passkeys and devices. Never the last enabled admin (409)." },
      },
    )
    .delete(
      "/:id/mfa",
      ({ request, params, set }) => {
        admin.resetMfa(actorOf(access.userOf(request)), params.id);
        set.status = 204;
      },
      {
        access: "admin",
        params: IdParams,
        response: { 204: t.Void({ description: "Second factors removed" }), ...problems(401, 403, 404) },
        detail: { tags: ["admin-users"], summary: "Reset a user's second factors", description: "Removes TOTP, passkeys and remembered devices." },
      },
    );
}
