/** Second factors: TOTP enrolment and verification, passkey registration and verification. */
import type { AuthenticationResponseJSON, RegistrationResponseJSON } from "@simplewebauthn/server";
import { Elysia, t, type Cookie } from "elysia";
import { DEVICE_COOKIE, DEVICE_TTL_MS } from "../auth/devices.ts";
import type { Mfa, Verified } from "../auth/mfa.ts";
import type { HubContext } from "../context.ts";
import { PasskeySchema, VerifiedSchema } from "../http/account-schemas.ts";
import type { Access } from "../http/access.ts";
import { clientIp, type SocketSource } from "../http/client-ip.ts";
import { JSON_TYPE, problems } from "../http/schemas.ts";

const Code = t.String({ maxLength: 16, description: "The 6-digit code shown by the authenticator app" });
const RememberDevice = t.Optional(t.Boolean({ description: "Skip the second factor on this browser for 30 days (hub_device cookie)" }));
const NO_CONTENT = t.Void({ description: "Done" });
const Options = t.Record(t.String(), t.Unknown(), { description: "WebAuthn options to pass to navigator.credentials" });

const RegistrationCredential = t.Object(
  {
    id: t.String({ maxLength: 1024 }),
    rawId: t.String({ maxLength: 1024 }),
    type: t.Literal("public-key"),
    response: t.Object({
      clientDataJSON: t.String({ maxLength: 65536 }),
      attestationObject: t.String({ maxLength: 262144 }),
      authenticatorData: t.Optional(t.String({ maxLength: 65536 })),
      transports: t.Optional(t.Array(t.String({ maxLength: 32 }), { maxItems: 16 })),
      publicKeyAlgorithm: t.Optional(t.Number()),
      publicKey: t.Optional(t.String({ maxLength: 65536 })),
    }),
    authenticatorAttachment: t.Optional(t.String({ maxLength: 32 })),
    clientExtensionResults: t.Record(t.String(), t.Unknown()),
  },
  { description: "The PublicKeyCredential from navigator.credentials.create(), JSON-encoded (base64url fields)" },
);

const AuthenticationCredential = t.Object(
  {
    id: t.String({ maxLength: 1024 }),
    rawId: t.String({ maxLength: 1024 }),
    type: t.Literal("public-key"),
    response: t.Object({
      clientDataJSON: t.String({ maxLength: 65536 }),
      authenticatorData: t.String({ maxLength: 65536 }),
      signature: t.String({ maxLength: 65536 }),
      userHandle: t.Optional(t.String({ maxLength: 1024 })),
    }),
    authenticatorAttachment: t.Optional(t.String({ maxLength: 32 })),
    clientExtensionResults: t.Record(t.String(), t.Unknown()),
  },
  { description: "The PublicKeyCredential from navigator.credentials.get(), JSON-encoded (base64url fields)" },
);

/** WebAuthn options as the library made them (their shape is the WebAuthn standard's, not ours to restate). */
function jsonResponse(value: object): Response {
  return new Response(JSON.stringify(value), { headers: { "content-type": JSON_TYPE, "cache-control": "no-store" } });
}

/** The schemas above check the shape; the WebAuthn library checks everything else. */
function asRegistration(credential: typeof RegistrationCredential.static): RegistrationResponseJSON {
  return credential as unknown as RegistrationResponseJSON;
}

function asAuthentication(credential: typeof AuthenticationCredential.static): AuthenticationResponseJSON {
  return credential as unknown as AuthenticationResponseJSON;
}

export function mfaRoutes(ctx: HubContext, access: Access, mfa: Mfa) {
  const { config } = ctx;
  const ip = (request: Request, server: SocketSource | null) => clientIp(request, config.trustedProxies, server);
  const reply = (verified: Verified, cookie: Record<string, Cookie<unknown>>) => {
    if (verified.deviceToken) {
      cookie[DEVICE_COOKIE]?.set({ value: verified.deviceToken, httpOnly: true, sameSite: "lax", path: "/", secure: config.cookieSecure, maxAge: DEVICE_TTL_MS / 1000 });
    }
    return { next: verified.next, methods: verified.methods };
  };

  return new Elysia({ name: "routes/mfa", prefix: "/api/v1/auth/mfa" })
    .use(access.plugin)
    .post("/totp", ({ request }) => mfa.startTotp(access.userOf(request)), {
      access: "session-partial",
      response: {
        200: t.Object(
          { secret: t.String({ description: "Base32 secret" }), uri: t.String({ description: "otpauth:// URI" }), qr: t.String({ description: "A data URL of a QR code of the URI" }) },
          { title: "TotpEnrolment" },
        ),
        ...problems(401, 403, 409),
      },
      detail: { tags: ["mfa"], summary: "Start TOTP enrolment", description: "A new secret, pending until activated with a code." },
    })
    .post(
      "/totp/activation",
      ({ request, body, set, server }) => {
        mfa.activateTotp(access.userOf(request), body.code, ip(request, server));
        set.status = 204;
      },
      {
        access: "session-partial",
        body: t.Object({ code: Code }),
        response: { 204: NO_CONTENT, ...problems(400, 401, 403, 409, 429) },
        detail: { tags: ["mfa"], summary: "Activate TOTP", description: "Confirms enrolment with a current code; during enrolment the session becomes fully signed in." },
      },
    )
    .post("/totp/verification", ({ request, body, cookie, server }) => reply(mfa.verifyTotp(access.userOf(request), body.code, body.rememberDevice ?? false, ip(request, server)), cookie), {
      access: "session-partial",
      body: t.Object({ code: Code, rememberDevice: RememberDevice }),
      response: { 200: VerifiedSchema, ...problems(400, 401, 403, 409, 429) },
      detail: { tags: ["mfa"], summary: "Verify with TOTP", description: "Passes the second factor. A code is never accepted twice." },
    })
    .delete(
      "/totp",
      ({ request, set }) => {
        mfa.disableTotp(access.userOf(request));
        set.status = 204;
      },
      {
        access: "session",
        response: { 204: NO_CONTENT, ...problems(401, 403, 404, 409) },
        detail: { tags: ["mfa"], summary: "Remove TOTP", description: "409 when it is the last factor and the role requires one." },
      },
    )
    .post("/passkeys/registration", async ({ request }) => jsonResponse(await mfa.passkeyRegistrationOptions(access.userOf(request))), {
      access: "session-partial",
      response: { 200: Options, ...problems(401, 403) },
      detail: { tags: ["mfa"], summary: "Passkey registration options", description: "Creation options with a single-use challenge valid for 5 minutes." },
    })
    .post(
      "/passkeys",
      async ({ request, body, set }) => {
        const passkey = await mfa.registerPasskey(access.userOf(request), asRegistration(body.response), body.label ?? null);
        set.status = 201;
        return { passkey };
      },
      {
        access: "session-partial",
        body: t.Object({ response: RegistrationCredential, label: t.Optional(t.Nullable(t.String({ maxLength: 120 }))) }),
        response: { 201: t.Object({ passkey: PasskeySchema }), ...problems(400, 401, 403) },
        detail: { tags: ["mfa"], summary: "Register a passkey", description: "Verifies the attestation against the pending challenge; during enrolment the session becomes fully signed in." },
      },
    )
    .get("/passkeys", ({ request }) => ({ passkeys: mfa.listPasskeys(access.userOf(request)) }), {
      access: "session",
      response: { 200: t.Object({ passkeys: t.Array(PasskeySchema) }), ...problems(401, 403) },
      detail: { tags: ["mfa"], summary: "List passkeys", description: "The signed-in user's passkeys." },
    })
    .delete(
      "/passkeys/:id",
      ({ request, params, set }) => {
        mfa.removePasskey(access.userOf(request), params.id);
        set.status = 204;
      },
      {
        access: "session",
        params: t.Object({ id: t.Integer({ minimum: 1 }) }),
        response: { 204: NO_CONTENT, ...problems(401, 403, 404, 409) },
        detail: { tags: ["mfa"], summary: "Remove a passkey", description: "409 when it is the last factor and the role requires one." },
      },
    )
    .post("/passkeys/challenge", async ({ request }) => jsonResponse(await mfa.passkeyChallenge(access.userOf(request))), {
      access: "session-partial",
      response: { 200: Options, ...problems(401, 403, 409) },
      detail: { tags: ["mfa"], summary: "Passkey challenge", description: "Request options with a single-use challenge valid for 5 minutes." },
    })
    .post(
      "/passkeys/verification",
      async ({ request, body, cookie, server }) => reply(await mfa.verifyPasskey(access.userOf(request), asAuthentication(body.response), body.rememberDevice ?? false, ip(request, server)), cookie),
      {
        access: "session-partial",
        body: t.Object({ response: AuthenticationCredential, rememberDevice: RememberDevice }),
        response: { 200: VerifiedSchema, ...problems(400, 401, 403, 429) },
        detail: { tags: ["mfa"], summary: "Verify with a passkey", description: "Passes the second factor with an assertion for the pending challenge." },
      },
    );
}
