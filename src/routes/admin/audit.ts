/** Admin: the audit log, newest first, paged and filtered. */
import { Elysia, t } from "elysia";
import type { HubContext } from "../../context.ts";
import { AUDIT_RATE_LIMIT, AUDIT_SUPPRESSED, listAudit } from "../../db/audit.ts";
import type { Access } from "../../http/access.ts";
import { integerQuery, MAX_ID, problems, queryInteger } from "../../http/schemas.ts";
import { auditViaSchema } from "../../http/vocabularies.ts";

export const AUDIT_LIMITS = { min: 1, max: 200, default: 50 } as const;

const AuditEntrySchema = t.Object(
  {
    id: t.Integer({ minimum: 1, description: "Entry id; entries are numbered in the order they were written" }),
    at: t.Integer({ description: "When the change was made (epoch milliseconds)" }),
    actorId: t.Nullable(t.Integer({ description: "Id of the user who made the change; null for the command line, the configuration, agents and refused sign-ins" })),
    actorName: t.Nullable(
      t.String({
        description:
          "The user's current username (the one recorded at the time, once the user is deleted); null for the command line, the configuration and agents",
      }),
    ),
    via: t.Nullable(
      auditViaSchema(
        "How the change came in: a signed-in session, an API key, the hub command line, or the configuration at start-up; " +
          "null for entries written before the hub recorded it",
      ),
    ),
    action: t.String({ description: "What was done, such as agent.create, user.delete or settings.update" }),
    target: t.Nullable(t.String({ description: "What it was done to: kind:id (agent:7, user:3, event:2, apikey:5) or a name (settings, agents, readings)" })),
    detail: t.Nullable(t.Record(t.String(), t.Unknown(), { description: "The change's particulars as recorded (never a password or token), or null" })),
  },
  { title: "AuditEntry" },
);

const AuditPageSchema = t.Object(
  {
    entries: t.Array(AuditEntrySchema, { description: "Newest first" }),
    next: t.Nullable(t.Integer({ minimum: 1, description: "Pass as `before` for the next (older) page; null when there are no older entries" })),
  },
  {
    title: "AuditPage",
    examples: [
      {
        entries: [
          {
            id: 42,
            at: 1_763_747_045_123,
            actorId: 1,
            actorName: "root",
            via: "session",
            action: "agent.create",
            target: "agent:7",
            detail: { region: "eu-west-1", provider: "steam" },
          },
        ],
        next: 42,
      },
    ],
  },
);

const AuditQuery = t.Object({
  limit: t.Optional(
    integerQuery({
      description: `How many entries a page holds: an integer from ${AUDIT_LIMITS.min} to ${AUDIT_LIMITS.max} (default ${AUDIT_LIMITS.default})`,
      minimum: AUDIT_LIMITS.min,
      maximum: AUDIT_LIMITS.max,
      examples: [AUDIT_LIMITS.default],
    }),
  ),
  before: t.Optional(integerQuery({ description: "Only entries older than this entry id: the `next` of the previous page", minimum: 1, maximum: MAX_ID, examples: [42] })),
  action: t.Optional(t.String({ minLength: 1, maxLength: 64, description: "Only actions starting with this, such as `agent.` or `agent.create`", examples: ["agent."] })),
  actor: t.Optional(integerQuery({ description: "Only changes made by this user id", minimum: 1, maximum: MAX_ID, examples: [1] })),
});

export function adminAuditRoutes(ctx: HubContext, access: Access) {
  return new Elysia({ name: "routes/admin/audit", prefix: "/api/v1/admin" }).use(access.plugin).get(
    "/audit",
    ({ query }) =>
      listAudit(ctx.db.orm, {
        limit: queryInteger(query.limit, "limit", { minimum: AUDIT_LIMITS.min, maximum: AUDIT_LIMITS.max }) ?? AUDIT_LIMITS.default,
        before: queryInteger(query.before, "before", { minimum: 1, maximum: MAX_ID }) ?? null,
        action: query.action ?? null,
        actorId: queryInteger(query.actor, "actor", { minimum: 1, maximum: MAX_ID }) ?? null,
      }),
    {
      access: "admin",
      query: AuditQuery,
      response: { 200: AuditPageSchema, ...problems(400, 401, 403) },
      detail: {
        tags: ["admin-audit"],
        summary: "Audit log",
        description:
          "The changes an investigation needs (refused sign-ins, second factors, keys created, switched on or off and deleted, users, roles, agents, " +
          "settings, webhooks, events, data deletion; not cosmetic edits such as a key's label), newest first, a page at a time: pass the " +
          "reply's `next` as `before` to read on until `next` is null. `action` keeps the actions that start with it (`agent.` for every " +
          "agent change, `agent.create` for one kind); `actor` keeps the changes of one user id. A user who is not an admin, and everyone " +
          `without an account together, cause at most ${AUDIT_RATE_LIMIT} entries a minute: beyond that, one \`${AUDIT_SUPPRESSED}\` entry ` +
          "per minute counts the rest (`detail`: `{ suppressed, actions, lastAt }`). Entries older than AUDIT_RETENTION_DAYS are pruned.",
      },
    },
  );
}
