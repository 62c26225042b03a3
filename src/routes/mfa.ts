/** Second factors: TOTP enrolment and verification, passkey registration and verification. */
import type { AuthenticationResponseJSON, RegistrationResponseJSON } from "@simplewebauthn/server";
import { Elysia, t, type Cookie } from "elysia";
import { actorOf, loggingRefusals } from "../auth/accounts.ts";
import { DEVICE_COOKIE, DEVICE_TTL_MS } from "../auth/devices.ts";
import type { Mfa, Verified } from "../auth/mfa.ts";
import type { HubContext } from "../context.ts";
import { audit } from "../db/audit.ts";
import { PasskeySchema, VerifiedSchema } from "../http/account-schemas.ts";
import type { Access } from "../http/access.ts";
import { clientIp, type SocketSource } from "../http/client-ip.ts";
import { idParams, problems } from "../http/schemas.ts";
import { TEXT_LIMITS } from "../domain/text-limits.ts";

const Code = t.String({ maxLength: 16, description: "The 6-digit code shown by the authenticator app" });
const RememberDevice = t.Optional(t.Boolean({ description: "Skip the second factor on this browser for 30 days (hub_device cookie)" }));
const NO_CONTENT = t.Void({ description: "Done" });
/** SPEC §10.1: the rule every change of factors follows, as each such operation describes it. */
const RECENT = "Needs a password or second-factor check from the last 10 minutes: 403 with `reauth: true` otherwise (POST /api/v1/auth/reauth, then repeat).";
const Base64Url = (description: string) => t.String({ maxLength: 65536, description: `${description}, base64url` });

const CredentialDescriptor = t.Object({
  id: Base64Url("Credential id"),
  type: t.String({ description: "Always public-key" }),
  transports: t.Optional(t.Array(t.String({ description: "usb, nfc, ble, hybrid, internal, …" }))),
});

const Extensions = t.Object({}, { additionalProperties: true, description: "WebAuthn extension inputs" });

const Requirement = t.Union([t.Literal("discouraged"), t.Literal("preferred"), t.Literal("required")]);

const Hints = t.Array(t.Union([t.Literal("hybrid"), t.Literal("security-key"), t.Literal("client-device")]));

/*
 * Both option objects accept members they do not list: Elysia drops the
 * undeclared members of a reply, and a WebAuthn library upgrade that adds
 * one must reach the browser rather than vanish here.
 */
const CreationOptions = t.Object(
  {
    rp: t.Object({ id: t.Optional(t.String({ description: "The RP id (the host of ORIGIN unless RP_ID is set)" })), name: t.String() }),
    user: t.Object({ id: Base64Url("User handle"), name: t.String(), displayName: t.String() }),
    challenge: Base64Url("Single-use challenge, valid for 5 minutes"),
    pubKeyCredParams: t.Array(t.Object({ alg: t.Integer({ description: "A COSE algorithm id" }), type: t.Literal("public-key") })),
    timeout: t.Optional(t.Integer({ description: "Milliseconds" })),
    excludeCredentials: t.Optional(t.Array(CredentialDescriptor, { description: "The account's passkeys, so an authenticator is not registered twice" })),
    authenticatorSelection: t.Optional(
      t.Object({
        authenticatorAttachment: t.Optional(t.Union([t.Literal("platform"), t.Literal("cross-platform")])),
        requireResidentKey: t.Optional(t.Boolean()),
        residentKey: t.Optional(Requirement),
        userVerification: t.Optional(Requirement),
      }),
    ),
    hints: t.Optional(Hints),
    attestation: t.Optional(t.Union([t.Literal("none"), t.Literal("indirect"), t.Literal("direct"), t.Literal("enterprise")])),
    attestationFormats: t.Optional(t.Array(t.String())),
    extensions: t.Optional(Extensions),
  },
  {
    title: "PasskeyCreationOptions",
    additionalProperties: true,
    description: "PublicKeyCredentialCreationOptionsJSON (WebAuthn Level 3): PublicKeyCredential.parseCreationOptionsFromJSON() turns it into the publicKey of navigator.credentials.create()",
  },
);

const RequestOptions = t.Object(
  {
    challenge: Base64Url("Single-use challenge, valid for 5 minutes"),
    timeout: t.Optional(t.Integer({ description: "Milliseconds" })),
    rpId: t.Optional(t.String()),
    allowCredentials: t.Optional(t.Array(CredentialDescriptor, { description: "The account's passkeys" })),
    userVerification: t.Optional(Requirement),
    hints: t.Optional(Hints),
    extensions: t.Optional(Extensions),
  },
  {
    title: "PasskeyRequestOptions",
    additionalProperties: true,
    description: "PublicKeyCredentialRequestOptionsJSON (WebAuthn Level 3): PublicKeyCredential.parseRequestOptionsFromJSON() turns it into the publicKey of navigator.credentials.get()",
  },
);

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
  { description: "The PublicKeyCredential from navigator.credentials.create(), as its toJSON() gives it (base64url fields)" },
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
  { description: "The PublicKeyCredential from navigator.credentials.get(), as its toJSON() gives it (base64url fields)" },
);

const PasskeyVerification = t.Union(
  [AuthenticationCredential, t.Object({ response: AuthenticationCredential, rememberDevice: RememberDevice }, { description: "The same, wrapped" })],
  { description: "The authenticator's response as the body itself, or wrapped as { response, rememberDevice }" },
);

const RememberQuery = t.Object({
  remember: t.Optional(t.Boolean({ description: "true: skip the second factor on this browser for 30 days (hub_device cookie), as rememberDevice does" })),
});

/** The schemas above check the shape; the WebAuthn library checks everything else. */
function asRegistration(credential: typeof RegistrationCredential.static): RegistrationResponseJSON {
  return credential as unknown as RegistrationResponseJSON;
}

/** Unwraps either body form; remember-device is asked for by the body or by the query. */
function assertionOf(body: typeof PasskeyVerification.static, rememberQuery: boolean | undefined): { response: AuthenticationResponseJSON; rememberDevice: boolean } {
  const wrapped = "rawId" in body ? { response: body, rememberDevice: undefined } : body;
  return { response: wrapped.response as unknown as AuthenticationResponseJSON, rememberDevice: rememberQuery === true || wrapped.rememberDevice === true };
}

export function mfaRoutes(ctx: HubContext, access: Access, mfa: Mfa) {
  const { config } = ctx;
  /** Second factors added and removed are audited (SPEC §16.1), against the user themselves, who counts against their own allowance. */
  const factorChanged = (request: Request, action: string, detail: Record<string, unknown> | null) => {
    const principal = access.userOf(request);
    audit(ctx.db.orm, actorOf(principal), action, `user:${principal.user.id}`, detail, ctx.now());
  };
  const ip = (request: Request, server: SocketSource | null) => clientIp(request, config.trustedProxies, server);
  type ResponseSet = { headers: Record<string, string | number> };
  const newSession = (sessionToken: string | null, cookie: Record<string, Cookie<unknown>>, set: ResponseSet) => {
    if (sessionToken !== null) access.setSessionCookie(cookie, set, sessionToken);
  };
  const reply = (verified: Verified, cookie: Record<string, Cookie<unknown>>, set: ResponseSet) => {
    newSession(verified.sessionToken, cookie, set);
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
      detail: { tags: ["mfa"], summary: "Start TOTP enrolment", description: `A new secret, pending until activated with a code. ${RECENT}` },
    })
    .post(
      "/totp/activation",
      async ({ request, body, cookie, set, server }) => {
        newSession(await loggingRefusals(ctx, () => mfa.activateTotp(access.userOf(request), body.code, ip(request, server))), cookie, set);
        factorChanged(request, "mfa.totp.add", null);
        set.status = 204;
      },
      {
        access: "session-partial",
        body: t.Object({ code: Code }),
        response: { 204: NO_CONTENT, ...problems(400, 401, 403, 409, 429) },
        detail: {
          tags: ["mfa"],
          summary: "Activate TOTP",
          description: `Confirms enrolment with a current code; during enrolment the session is replaced by a fully signed-in one (a new cookie). ${RECENT}`,
          "x-response-headers": { 204: ["Set-Cookie"] },
        },
      },
    )
    .post(
      "/totp/verification",
      async ({ request, body, cookie, set, server }) => {
        const verified = await loggingRefusals(ctx, () => mfa.verifyTotp(access.userOf(request), body.code, body.rememberDevice ?? false, ip(request, server)));
        return reply(verified, cookie, set);
      },
      {
        access: "session-partial",
        body: t.Object({ code: Code, rememberDevice: RememberDevice }),
        response: { 200: VerifiedSchema, ...problems(400, 401, 403, 409, 429) },
        detail: {
          tags: ["mfa"],
          summary: "Verify with TOTP",
          description:
            "Passes the second factor: a password-level session is replaced by a fully signed-in one (a new cookie; read the new csrfToken from GET /api/v1/auth/session); " +
            "a full session counts as freshly signed in. A code is never accepted twice. Wrong codes are throttled as sign-ins are: 429 with Retry-After.",
          "x-response-headers": { 200: ["Set-Cookie"] },
        },
      },
    )
    .delete(
      "/totp",
      ({ request, set }) => {
        mfa.disableTotp(access.userOf(request));
        factorChanged(request, "mfa.totp.remove", null);
        set.status = 204;
      },
      {
        access: "session",
        response: { 204: NO_CONTENT, ...problems(401, 403, 404, 409) },
        detail: { tags: ["mfa"], summary: "Remove TOTP", description: `409 when it is the last factor and the role requires one. ${RECENT}` },
      },
    )
    .post(
      "/passkeys/registration",
      async ({ request, set }) => {
        set.headers["cache-control"] = "no-store";
        return { publicKey: await mfa.passkeyRegistrationOptions(access.userOf(request)) };
      },
      {
        access: "session-partial",
        response: { 200: t.Object({ publicKey: CreationOptions }, { title: "PasskeyRegistration" }), ...problems(401, 403) },
        detail: {
          tags: ["mfa"],
          summary: "Passkey registration options",
          description: `Creation options with a single-use challenge valid for 5 minutes, as \`{ publicKey }\`; send the created credential to POST /api/v1/auth/mfa/passkeys. ${RECENT}`,
        },
      },
    )
    .post(
      "/passkeys",
      async ({ request, body, cookie, set }) => {
        const { passkey, sessionToken } = await mfa.registerPasskey(access.userOf(request), asRegistration(body.response), body.label ?? null);
        factorChanged(request, "mfa.passkey.add", { label: passkey.label });
        newSession(sessionToken, cookie, set);
        set.status = 201;
        return { passkey };
      },
      {
        access: "session-partial",
        body: t.Object({ response: RegistrationCredential, label: t.Optional(t.Nullable(t.String({ maxLength: TEXT_LIMITS.label }))) }),
        response: { 201: t.Object({ passkey: PasskeySchema }), ...problems(400, 401, 403) },
        detail: {
          tags: ["mfa"],
          summary: "Register a passkey",
          description: `Verifies the attestation against the pending challenge; during enrolment the session is replaced by a fully signed-in one (a new cookie). ${RECENT}`,
          "x-response-headers": { 201: ["Set-Cookie"] },
        },
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
        factorChanged(request, "mfa.passkey.remove", null);
        set.status = 204;
      },
      {
        access: "session",
        params: idParams("Passkey"),
        response: { 204: NO_CONTENT, ...problems(401, 403, 404, 409) },
        detail: { tags: ["mfa"], summary: "Remove a passkey", description: `409 when it is the last factor and the role requires one. ${RECENT}` },
      },
    )
    .post(
      "/passkeys/challenge",
      async ({ request, set }) => {
        set.headers["cache-control"] = "no-store";
        return { publicKey: await mfa.passkeyChallenge(access.userOf(request)) };
      },
      {
        access: "session-partial",
        response: { 200: t.Object({ publicKey: RequestOptions }, { title: "PasskeyChallenge" }), ...problems(401, 403, 409) },
        detail: {
          tags: ["mfa"],
          summary: "Passkey challenge",
          description: "Request options with a single-use challenge valid for 5 minutes, as `{ publicKey }`; send the assertion to POST /api/v1/auth/mfa/passkeys/verification.",
        },
      },
    )
    .post(
      "/passkeys/verification",
      async ({ request, body, query, cookie, set, server }) => {
        const { response, rememberDevice } = assertionOf(body, query.remember);
        return reply(await loggingRefusals(ctx, () => mfa.verifyPasskey(access.userOf(request), response, rememberDevice, ip(request, server))), cookie, set);
      },
      {
        access: "session-partial",
        query: RememberQuery,
        body: PasskeyVerification,
        response: { 200: VerifiedSchema, ...problems(400, 401, 403, 429) },
        detail: {
          tags: ["mfa"],
          summary: "Verify with a passkey",
          description:
            "Passes the second factor with an assertion for the pending challenge: a password-level session is replaced by a fully signed-in one (a new cookie), a full one " +
            "counts as freshly signed in. The body is the credential itself or `{ response, rememberDevice }`; `?remember=true` asks to remember the device as well.",
          "x-response-headers": { 200: ["Set-Cookie"] },
        },
      },
    );
}
