/**
 * Every route declares who may call it with `access: <rule>`. The rule is
 * enforced before the request body is even read, let alone validated, and
 * recorded in the route's OpenAPI operation (`x-access` and `security`) so
 * that the description and the route-table test both see it. Refusals at
 * admin routes and refused CSRF tokens are logged with the client's address.
 */
import { Elysia, type Cookie } from "elysia";
import type { Accounts, UserPrincipal } from "../auth/accounts.ts";
import { HOST_SESSION_COOKIE, SESSION_COOKIE } from "../auth/sessions.ts";
import { bearerToken, secretsEqual, sha256Hex } from "../domain/tokens.ts";
import type { Config } from "../config/load.ts";
import type { Agent } from "../db/agents.ts";
import type { RuntimeSettings } from "../settings.ts";
import { clientIp, type SocketSource } from "./client-ip.ts";
import { readCookie, serializeCookie, type CookieAttributes } from "./cookies.ts";
import { AccessRefusal, PendingBody, readBodyAfterAccess } from "./errors.ts";
import { receivedRequest } from "./incentives.ts";
import { HttpProblem } from "../domain/problem.ts";

export const ACCESS_RULES = ["public", "public-read", "agent", "session-partial", "session", "admin", "metrics"] as const;
export type AccessRule = (typeof ACCESS_RULES)[number];

type SecurityRequirement = Record<string, string[]>;

const USER_CREDENTIALS: SecurityRequirement[] = [{ sessionCookie: [] }, { apiKey: [] }, { apiKeyHeader: [] }];

const SECURITY: Readonly<Record<AccessRule, SecurityRequirement[]>> = {
  public: [],
  "public-read": [{}, ...USER_CREDENTIALS],
  agent: [{ agentToken: [] }],
  "session-partial": [{ sessionCookie: [] }],
  session: [{ sessionCookie: [] }],
  admin: USER_CREDENTIALS,
  metrics: [...USER_CREDENTIALS, { metricsToken: [] }],
};

export const ACCESS_DESCRIPTIONS: Readonly<Record<AccessRule, string>> = {
  public: "Open to everyone, never behind the read gate.",
  "public-read": "Public while requireAuth is off; otherwise a fully signed-in session or an API key.",
  agent: "An agent's bearer token.",
  "session-partial": "A session cookie, also one that has passed only the password (CSRF token on changes).",
  session: "A fully signed-in session cookie (CSRF token on changes); API keys are not accepted.",
  admin: "An admin's fully signed-in session (CSRF token on changes) or an admin's API key.",
  metrics: "An admin (session or API key), or the operator's METRICS_TOKEN as a bearer token.",
};

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

export interface AccessDeps {
  readonly config: Config;
  readonly settings: RuntimeSettings;
  /** The agents by token hash (the live directory, src/live/agents.ts, in the hub). */
  readonly agents: { findByTokenHash(tokenHash: string): Agent | undefined };
  readonly accounts: Accounts;
}

export interface Access {
  readonly plugin: ReturnType<typeof accessPlugin>;
  /** The agent that authenticated this request (routes with access "agent"). */
  agentOf(request: Request): Agent;
  /** The signed-in user of this request (session, session-partial and admin routes). */
  userOf(request: Request): UserPrincipal;
  /** The signed-in user, if any (public routes such as the session body). */
  optionalUserOf(request: Request): UserPrincipal | null;
  /** The session token the request presented, if any (to end it when the browser signs in anew). */
  presentedSession(request: Request): string | undefined;
  /** Hands the browser a new session (sign-in, setup, a change of level), replacing any renewal of the old one in the same reply. */
  setSessionCookie(cookie: Record<string, Cookie<unknown>>, set: ResponseSet, token: string): void;
  clearSessionCookie(cookie: Record<string, Cookie<unknown>>): void;
}

/** Where a renewed session cookie is written (Elysia's `set`). */
type ResponseSet = { headers: Record<string, string | number> };
type Authorize = (rule: AccessRule, request: Request, set: ResponseSet, server: SocketSource | null) => void;
/** What the access step sees of Elysia's context; it replaces a pending body by the parsed one. */
interface AccessContext {
  readonly request: Request;
  readonly set: ResponseSet;
  readonly server: SocketSource | null;
  body: unknown;
}
type ReadBody = (body: PendingBody, request: Request, server: SocketSource | null) => Promise<object | null>;

/**
 * Elysia parses bodies before its `transform` phase, where the rule runs, so
 * every request's body is left pending (`readBodyAfterAccess`) and read here
 * only once the rule has passed.
 */
function accessPlugin(authorize: Authorize, readBody: ReadBody) {
  return new Elysia({ name: "hub/access" })
    .onRequest(({ request }) => {
      readBodyAfterAccess(request);
    })
    .macro({
      access: (rule: AccessRule) => ({
        detail: { "x-access": rule, security: SECURITY[rule] },
        // An arrow function, not a method: Elysia reads each hook's source to learn what it uses (Sucrose), and
        // takes a minified method's source (`transform(i){…}`) for a parameter list, which it cannot analyse.
        transform: async (context: AccessContext) => {
          authorize(rule, context.request, context.set, context.server);
          if (context.body instanceof PendingBody) context.body = await readBody(context.body, context.request, context.server);
        },
      }),
    });
}

const httpsOrigin = (config: Config): boolean => config.origin.startsWith("https:");

/**
 * The session cookie's name (SPEC §10.1): `__Host-hub_session` on an https
 * origin, `hub_session` on plain http, where a browser would refuse the
 * prefix. The hub reads only the name of its own origin.
 */
export function sessionCookieName(config: Config): string {
  return httpsOrigin(config) ? HOST_SESSION_COOKIE : SESSION_COOKIE;
}

/** Cookie attributes of the session cookie: always Secure on an https origin, as the __Host- prefix requires. */
export function sessionCookie(config: Config): CookieAttributes {
  return { httpOnly: true, sameSite: "lax", path: "/", secure: httpsOrigin(config) || config.cookieSecure, maxAge: config.sessionTtlHours * 3600 };
}

export function createAccess(deps: AccessDeps): Access {
  const { accounts, config, settings } = deps;
  const cookieName = sessionCookieName(config);
  const agents = new WeakMap<Request, Agent>();
  const users = new WeakMap<Request, UserPrincipal>();
  const resolved = new WeakMap<Request, UserPrincipal | null>();

  const authenticateAgent = (request: Request): void => {
    const token = bearerToken(request);
    const challenge = { "www-authenticate": 'Bearer realm="agents"' };
    if (!token) throw new HttpProblem(401, "Send the agent's token as Authorization: Bearer <token>.", { headers: challenge });
    const agent = deps.agents.findByTokenHash(sha256Hex(token));
    if (!agent) throw new HttpProblem(401, "This agent token is not known to the hub.", { headers: challenge });
    if (!agent.enabled) throw new HttpProblem(403, "This agent is disabled; ask the hub's admin to enable it.");
    agents.set(request, agent);
  };

  const identify = (request: Request, set: ResponseSet | null): UserPrincipal | null => {
    if (resolved.has(request)) return resolved.get(request) ?? null;
    const raw = readCookie(request, cookieName);
    const resolution = accounts.resolve(request, raw);
    if (resolution.refusal) throw new HttpProblem(401, resolution.refusal, { headers: { "www-authenticate": 'Bearer realm="hub"' } });
    if (resolution.renewCookie && raw !== undefined && set) set.headers["set-cookie"] = serializeCookie(cookieName, raw, sessionCookie(config));
    resolved.set(request, resolution.principal);
    return resolution.principal;
  };

  const addressOf = (request: Request, server: SocketSource | null): string => clientIp(receivedRequest(request), config.trustedProxies, server);

  const requireCsrf = (rule: AccessRule, request: Request, principal: UserPrincipal, server: SocketSource | null): void => {
    if (principal.via !== "session" || SAFE_METHODS.has(request.method) || !principal.session) return;
    const token = request.headers.get("x-csrf-token");
    if (!token || !secretsEqual(token, principal.session.csrfToken)) {
      const problem = new HttpProblem(403, "Send the session's csrfToken (from GET /api/v1/auth/session) in the X-CSRF-Token header.");
      throw new AccessRefusal(problem, addressOf(request, server), rule, principal.user.username);
    }
  };

  const signedIn = (request: Request, set: ResponseSet, detail: string): UserPrincipal => {
    const principal = identify(request, set);
    if (!principal) throw new HttpProblem(401, detail);
    return principal;
  };

  const authorize: Authorize = (rule, request, set, server) => {
    switch (rule) {
      case "public":
        return;
      case "public-read": {
        if (accounts.presence.wants()) accounts.presence.seen(addressOf(request, server));
        if (!settings.get().requireAuth) return;
        const principal = identify(request, set);
        if (principal?.level !== "mfa") {
          throw new HttpProblem(401, "This hub requires signing in (or an API key) to read its data.", { headers: { "www-authenticate": 'Bearer realm="hub"' } });
        }
        return;
      }
      case "agent":
        authenticateAgent(request);
        return;
      case "session-partial":
      case "session": {
        const principal = signedIn(request, set, "Sign in first.");
        if (principal.via !== "session") throw new HttpProblem(403, "This needs a signed-in session; API keys cannot do it.");
        if (rule === "session" && principal.level !== "mfa") throw new HttpProblem(401, "Finish signing in with your second factor first.");
        requireCsrf(rule, request, principal, server);
        users.set(request, principal);
        return;
      }
      case "metrics": {
        const token = bearerToken(request);
        if (config.metricsToken !== null && token !== null && secretsEqual(token, config.metricsToken)) return;
        authorize("admin", request, set, server);
        return;
      }
      case "admin": {
        const refuse = (problem: HttpProblem, username: string | null) => new AccessRefusal(problem, addressOf(request, server), rule, username);
        let principal: UserPrincipal;
        try {
          principal = signedIn(request, set, "Sign in as an admin, or send an admin's API key.");
        } catch (error) {
          throw error instanceof HttpProblem ? refuse(error, null) : error;
        }
        const { username } = principal.user;
        if (principal.level !== "mfa") throw refuse(new HttpProblem(401, "Finish signing in with your second factor first."), username);
        if (principal.user.role !== "admin") throw refuse(new HttpProblem(403, "Only admins may do this."), username);
        requireCsrf(rule, request, principal, server);
        users.set(request, principal);
        return;
      }
    }
  };

  return {
    plugin: accessPlugin(authorize, (body, request, server) => body.read(config.bodyTimeoutMs, () => addressOf(request, server))),
    agentOf(request) {
      const agent = agents.get(request);
      if (!agent) throw new Error("agentOf called on a route without agent access");
      return agent;
    },
    userOf(request) {
      const principal = users.get(request);
      if (!principal) throw new Error("userOf called on a route without user access");
      return principal;
    },
    optionalUserOf(request) {
      try {
        return identify(request, null);
      } catch {
        return null;
      }
    },
    presentedSession: (request) => readCookie(request, cookieName),
    setSessionCookie(cookie, set, token) {
      // A renewal of the old session's cookie written by the access step must not follow the new cookie out.
      delete set.headers["set-cookie"];
      cookie[cookieName]?.set({ value: token, ...sessionCookie(config) });
    },
    clearSessionCookie(cookie) {
      // With the attributes it was set with: a browser ignores a __Host- cookie's removal that is not Secure for Path=/.
      cookie[cookieName]?.set({ value: "", ...sessionCookie(config), maxAge: 0, expires: new Date(0) });
    },
  };
}
