/** Sign-in: first-admin setup, login, logout, the session body, password change, MFA policy, remembered devices. */
import { Elysia, t } from "elysia";
import { DEVICE_COOKIE } from "../auth/devices.ts";
import { loggingRefusals, type Accounts } from "../auth/accounts.ts";
import type { HubContext } from "../context.ts";
import { LoginReplySchema, Role, SessionBodySchema } from "../http/account-schemas.ts";
import type { Access } from "../http/access.ts";
import { clientIp } from "../http/client-ip.ts";
import { CurrentPasswordSchema, EmailSchema, LoginUsernameSchema, NameSchema, PasswordSchema, UsernameSchema } from "../http/field-schemas.ts";
import { problems } from "../http/schemas.ts";

const Credentials = t.Object({ username: LoginUsernameSchema, password: CurrentPasswordSchema });
const NO_CONTENT = t.Void({ description: "Done" });

export function authRoutes(ctx: HubContext, access: Access, accounts: Accounts) {
  const { config } = ctx;
  const noStore = (set: { headers: Record<string, string | number> }) => {
    set.headers["cache-control"] = "no-store";
  };
  return new Elysia({ name: "routes/auth", prefix: "/api/v1/auth" })
    .use(access.plugin)
    .post(
      "/setup",
      async ({ body, cookie, request, set }) => {
        const outcome = await accounts.setup({ username: body.username, password: body.password, email: body.email ?? null, name: body.name ?? null });
        accounts.endPresentedSession(access.presentedSession(request));
        access.setSessionCookie(cookie, set, outcome.sessionToken);
        noStore(set);
        set.status = 201;
        return { next: outcome.next, methods: outcome.methods };
      },
      {
        access: "public",
        body: t.Object({
          username: UsernameSchema,
          password: PasswordSchema,
          email: t.Optional(t.Nullable(EmailSchema)),
          name: t.Optional(t.Nullable(NameSchema)),
        }),
        response: { 201: LoginReplySchema, ...problems(400, 409) },
        detail: {
          tags: ["auth"],
          summary: "Create the first admin",
          "x-response-headers": { 201: ["Set-Cookie"] },
          description:
            "Only while no admin exists (409 after); two racing calls create exactly one admin. Signs the new admin in with a new session cookie (hub_session, or __Host-hub_session on an https origin); a session the browser held before ends.",
        },
      },
    )
    .post(
      "/login",
      async ({ body, cookie, request, set, server }) => {
        const device = cookie[DEVICE_COOKIE]?.value;
        const ip = clientIp(request, config.trustedProxies, server);
        const outcome = await loggingRefusals(ctx, () => accounts.login(body.username, body.password, ip, typeof device === "string" ? device : undefined));
        accounts.endPresentedSession(access.presentedSession(request));
        access.setSessionCookie(cookie, set, outcome.sessionToken);
        noStore(set);
        return { next: outcome.next, methods: outcome.methods };
      },
      {
        access: "public",
        body: Credentials,
        response: { 200: LoginReplySchema, ...problems(400, 401, 429) },
        detail: {
          tags: ["auth"],
          summary: "Sign in",
          "x-response-headers": { 200: ["Set-Cookie"] },
          description:
            "Sets a new session cookie (hub_session, or __Host-hub_session on an https origin) and ends any session the browser held before. `next` says what is left: ok, mfa (verify a factor) or enroll_mfa (enrol one first). Wrong username, wrong password and " +
            "disabled user give the same 401. After 10 failures for a username or 50 from an IP within 15 minutes: 429 with Retry-After, without the password " +
            "being checked; each attempt counts before its password is checked, so parallel guesses get no more than 10 tries either.",
        },
      },
    )
    .post(
      "/logout",
      ({ request, cookie, set }) => {
        accounts.logout(access.userOf(request));
        access.clearSessionCookie(cookie);
        noStore(set);
        set.status = 204;
      },
      { access: "session-partial", response: { 204: NO_CONTENT, ...problems(401, 403) }, detail: { tags: ["auth"], summary: "Sign out", description: "Ends the session and clears its cookie.", "x-response-headers": { 204: ["Set-Cookie"] } } },
    )
    .get(
      "/session",
      ({ request, set }) => {
        noStore(set);
        return accounts.sessionBody(access.optionalUserOf(request));
      },
      {
        access: "public",
        response: { 200: SessionBodySchema },
        detail: { tags: ["auth"], summary: "The current session", description: "Who is signed in, at what level, the CSRF token, and what the hub still needs (setup, MFA)." },
      },
    )
    .post(
      "/password",
      async ({ body, request, set, server }) => {
        const ip = clientIp(request, config.trustedProxies, server);
        await loggingRefusals(ctx, () => accounts.changePassword(access.userOf(request), body.currentPassword, body.newPassword, ip, body.revokeApiKeys ?? true));
        noStore(set);
        set.status = 204;
      },
      {
        access: "session",
        body: t.Object({
          currentPassword: CurrentPasswordSchema,
          newPassword: PasswordSchema,
          revokeApiKeys: t.Optional(
            t.Boolean({ default: true, description: "Also switch off all your API keys (they stay listed and can be switched on again). Default true; false keeps them working" }),
          ),
        }),
        response: { 204: NO_CONTENT, ...problems(400, 401, 403, 429) },
        detail: {
          tags: ["auth"],
          summary: "Change password",
          description:
            "Ends the user's other sessions, forgets their remembered devices and switches off their API keys unless revokeApiKeys is false. A wrong current password is 403; " +
            "wrong current passwords count towards the sign-in limits (429 with Retry-After).",
        },
      },
    )
    .post(
      "/reauth",
      async ({ body, request, set, server }) => {
        const ip = clientIp(request, config.trustedProxies, server);
        await loggingRefusals(ctx, () => accounts.reauthenticate(access.userOf(request), body.password, ip));
        noStore(set);
        set.status = 204;
      },
      {
        access: "session-partial",
        body: t.Object({ password: CurrentPasswordSchema }),
        response: { 204: NO_CONTENT, ...problems(400, 401, 403, 429) },
        detail: {
          tags: ["auth"],
          summary: "Confirm your password again",
          description:
            "Adding or removing a second factor and creating an API key need a password or second-factor check from the last 10 minutes; otherwise they answer 403 " +
            "with `reauth: true`. This confirms the password (a TOTP or passkey verification does as well) and the refused request can be repeated. " +
            "A wrong password is 403 and counts towards the sign-in limits (429 with Retry-After), as a password change does.",
        },
      },
    )
    .post(
      "/mfa/policy",
      ({ body, cookie, request, set }) => {
        const sessionToken = accounts.choosePolicy(access.userOf(request), body.roles);
        if (sessionToken !== null) access.setSessionCookie(cookie, set, sessionToken);
        noStore(set);
        set.status = 204;
      },
      {
        access: "session-partial",
        body: t.Object({ roles: t.Array(Role, { maxItems: 8, description: "Roles that must use a second factor: admin, user (or none)" }) }),
        response: { 204: NO_CONTENT, ...problems(400, 401, 403, 409) },
        detail: {
          tags: ["auth"],
          summary: "Choose the first MFA policy",
          description:
            "The first admin's choice, while needsMfaPolicy is true (409 after; later changes go through the admin settings). Needs a fully signed-in admin (401 otherwise), " +
            "except for the session that POST /api/v1/auth/setup issued. If the admin then needs no second factor, the session is replaced by a fully signed-in one (a new cookie).",
          "x-response-headers": { 204: ["Set-Cookie"] },
        },
      },
    )
    .delete(
      "/trusted-devices",
      ({ request, cookie, set }) => {
        accounts.devices.forgetAll(access.userOf(request).user.id);
        cookie[DEVICE_COOKIE]?.remove();
        noStore(set);
        set.status = 204;
      },
      { access: "session", response: { 204: NO_CONTENT, ...problems(401, 403) }, detail: { tags: ["auth"], summary: "Forget remembered devices", description: "Every browser of this user will ask for the second factor again." } },
    );
}
