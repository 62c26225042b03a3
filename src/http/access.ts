/**
 * Every route declares who may call it with `access: <rule>`. The rule is
 * enforced before the request is validated, and recorded in the route's
 * OpenAPI operation (`x-access` and `security`) so that the description and
 * the route-table test both see it.
 */
import { Elysia } from "elysia";
import { bearerToken, sha256Hex } from "../auth/tokens.ts";
import type { Agent } from "../db/agents.ts";
import type { AgentDirectory } from "../live/agents.ts";
import type { RuntimeSettings } from "../settings.ts";
import { HttpProblem } from "./problem.ts";

export const ACCESS_RULES = ["public", "public-read", "agent"] as const;
export type AccessRule = (typeof ACCESS_RULES)[number];

type SecurityRequirement = Record<string, string[]>;

const USER_CREDENTIALS: SecurityRequirement[] = [{ sessionCookie: [] }, { apiKey: [] }, { apiKeyHeader: [] }];

const SECURITY: Readonly<Record<AccessRule, SecurityRequirement[]>> = {
  public: [],
  "public-read": [{}, ...USER_CREDENTIALS],
  agent: [{ agentToken: [] }],
};

export const ACCESS_DESCRIPTIONS: Readonly<Record<AccessRule, string>> = {
  public: "Open to everyone, never behind the read gate.",
  "public-read": "Public while requireAuth is off; otherwise a fully signed-in session or an API key.",
  agent: "An agent's bearer token.",
};

export interface AccessDeps {
  readonly settings: RuntimeSettings;
  readonly agents: AgentDirectory;
}

export interface Access {
  readonly plugin: ReturnType<typeof accessPlugin>;
  /** The agent that authenticated this request (routes with access "agent"). */
  agentOf(request: Request): Agent;
}

function accessPlugin(authorize: (rule: AccessRule, request: Request) => void) {
  return new Elysia({ name: "hub/access" }).macro({
    access: (rule: AccessRule) => ({
      detail: { "x-access": rule, security: SECURITY[rule] },
      transform({ request }: { request: Request }) {
        authorize(rule, request);
      },
    }),
  });
}

export function createAccess(deps: AccessDeps): Access {
  const agents = new WeakMap<Request, Agent>();

  const authenticateAgent = (request: Request): void => {
    const token = bearerToken(request);
    const challenge = { "www-authenticate": 'Bearer realm="agents"' };
    if (!token) throw new HttpProblem(401, "Send the agent's token as Authorization: Bearer <token>.", { headers: challenge });
    const agent = deps.agents.findByTokenHash(sha256Hex(token));
    if (!agent) throw new HttpProblem(401, "This agent token is not known to the hub.", { headers: challenge });
    if (!agent.enabled) throw new HttpProblem(403, "This agent is disabled; ask the hub's admin to enable it.");
    agents.set(request, agent);
  };

  const authorize = (rule: AccessRule, request: Request): void => {
    switch (rule) {
      case "public":
        return;
      case "public-read":
        if (deps.settings.get().requireAuth) {
          throw new HttpProblem(401, "This hub requires signing in (or an API key) to read its data.", {
            headers: { "www-authenticate": 'Bearer realm="hub"' },
          });
        }
        return;
      case "agent":
        authenticateAgent(request);
        return;
    }
  };

  return {
    plugin: accessPlugin(authorize),
    agentOf(request) {
      const agent = agents.get(request);
      if (!agent) throw new Error("agentOf called on a route without agent access");
      return agent;
    },
  };
}
