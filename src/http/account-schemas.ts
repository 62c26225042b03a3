/** TypeBox schemas of accounts: users, sessions, second factors, API keys and settings. */
import { t } from "elysia";
import { authLevelSchema, factorMethodSchema, userRoleSchema } from "./vocabularies.ts";

const epochMs = (description: string) => t.Integer({ description: `${description} (epoch ms)` });
export const Role = userRoleSchema();
export const MethodSchema = factorMethodSchema();
export const NextSchema = t.Union([t.Literal("ok"), t.Literal("mfa"), t.Literal("enroll_mfa")], {
  description: "ok: fully signed in; mfa: verify a factor from methods; enroll_mfa: the role requires a factor and none is enrolled",
});

export const UserSchema = t.Object(
  {
    id: t.Integer(),
    username: t.String(),
    name: t.Nullable(t.String()),
    email: t.Nullable(t.String()),
    role: Role,
    enabled: t.Boolean(),
    hasPassword: t.Boolean(),
    hasPasskey: t.Boolean(),
    totpEnabled: t.Boolean(),
    createdAt: epochMs("When the user was created"),
    lastLoginAt: t.Nullable(epochMs("Last sign-in")),
  },
  {
    title: "User",
    examples: [
      { id: 1, username: "alice", name: "Alice", email: "alice@example.org", role: "admin", enabled: true, hasPassword: true, hasPasskey: false, totpEnabled: true, createdAt: 1795300000000, lastLoginAt: 1795301000000 },
    ],
  },
);

export const SessionBodySchema = t.Object(
  {
    authenticated: t.Boolean({ description: "Fully signed in" }),
    authLevel: t.Nullable(authLevelSchema()),
    csrfToken: t.Nullable(t.String({ description: "Send in X-CSRF-Token with every state change made with the session cookie" })),
    enableApiKeys: t.Boolean(),
    requireAuth: t.Boolean(),
    needsSetup: t.Boolean({ description: "No admin exists yet: POST /api/v1/auth/setup" }),
    needsMfaPolicy: t.Boolean({ description: "The caller is an admin and no admin has chosen the MFA policy yet" }),
    mfa: t.Object({
      required: t.Boolean({ description: "The session must still pass a second factor" }),
      enroll: t.Boolean({ description: "It must first enrol one" }),
      methods: t.Array(MethodSchema, { description: "The user's enrolled factors" }),
    }),
    user: t.Nullable(UserSchema),
  },
  { title: "SessionBody" },
);

export const LoginReplySchema = t.Object(
  { next: NextSchema, methods: t.Array(MethodSchema) },
  { title: "LoginReply", examples: [{ next: "mfa", methods: ["totp"] }] },
);

export const VerifiedSchema = t.Object({ next: t.Literal("ok"), methods: t.Array(MethodSchema) }, { title: "SecondFactorVerified" });

export const PasskeySchema = t.Object(
  {
    id: t.Integer(),
    label: t.Nullable(t.String()),
    createdAt: epochMs("Registered"),
    lastUsedAt: t.Nullable(epochMs("Last used")),
    backupEligible: t.Nullable(
      t.Boolean({ description: "Whether it is a passkey that can sync (a password manager or cloud account may hold it), from its authenticator's backup-eligible flag; null when not known (registered before the hub kept flags)" }),
    ),
    backedUp: t.Nullable(t.Boolean({ description: "Whether it was synced at its last use (the backed-up flag): a synced passkey survives the loss of one device; null when not known" })),
  },
  { title: "Passkey" },
);

export const ApiKeySchema = t.Object(
  {
    id: t.Integer({ description: "The key's id, never reused" }),
    label: t.Nullable(t.String({ description: "The owner's name for the key" })),
    prefix: t.String({ description: "The first 12 characters of the key, to recognise it by" }),
    enabled: t.Boolean({ description: "A switched-off key authenticates nothing until switched on again" }),
    createdAt: epochMs("Created"),
    lastUsedAt: t.Nullable(epochMs("Last authenticated a request (kept to within a minute); null if never")),
    expiresAt: t.Nullable(epochMs("From this instant on the key authenticates nothing; null if it never expires")),
  },
  {
    title: "ApiKey",
    description: "One of the signed-in user's API keys; the key itself is never shown again after it is created.",
    examples: [{ id: 3, label: "grafana", prefix: "hub_Q2x1Y3Rp", enabled: true, createdAt: 1795300000000, lastUsedAt: null, expiresAt: 1797892000000 }],
  },
);

export const NewApiKeySchema = t.Object(
  {
    key: t.String({
      pattern: "^hub_[A-Za-z0-9_-]{43}$",
      description: "The key: hub_ + 43 base64url characters. Shown only in this reply (the hub keeps only its SHA-256); send it as Authorization: Bearer or X-API-Key",
    }),
    apiKey: ApiKeySchema,
  },
  {
    title: "NewApiKey",
    description: "The key just created, and its entry as listed from now on.",
    examples: [
      {
        key: "hub_Q2x1Y3RpdmF0ZS1hbGwtdGhlLXRoaW5ncy0xMjM0NTY",
        apiKey: { id: 3, label: "grafana", prefix: "hub_Q2x1Y3Rp", enabled: true, createdAt: 1795300000000, lastUsedAt: null, expiresAt: 1797892000000 },
      },
    ],
  },
);

export const AdminSettingsSchema = t.Object(
  {
    requireAuth: t.Boolean(),
    enableApiKeys: t.Boolean(),
    mfaEnforcedRoles: t.Array(Role),
    locked: t.Array(t.String(), { description: "Fields set explicitly by the operator (flag, environment or file); they cannot be changed here" }),
  },
  { title: "AdminSettings", examples: [{ requireAuth: false, enableApiKeys: true, mfaEnforcedRoles: ["admin"], locked: ["requireAuth"] }] },
);
