/**
 * The hub's side of the control socket. Each change goes through the same
 * admin code as the HTTP admin API, audited as coming from the command line;
 * the socket file is owner-only, which is the gate (Bun does not expose the
 * peer's credentials). Bodies carry passwords, so they are never logged.
 * Changes obey the storage rules of HTTP writes (SPEC §16.2): each waits for
 * the write lock asynchronously, at most WRITE_WAIT_MS, and a write storage
 * refuses is the same 503 problem, which the CLI prints as its error.
 */
import { chmodSync, lstatSync, rmSync } from "node:fs";
import { isAbsolute } from "node:path";
import type { Server } from "bun";
import { AgentAdmin } from "../admin/agents.ts";
import { UserAdmin } from "../auth/admin-users.ts";
import type { HubContext } from "../context.ts";
import { audit, CLI_ACTOR } from "../db/audit.ts";
import { findUserByName } from "../db/users.ts";
import { loadOrCreateKey } from "../auth/keys.ts";
import { BUILT_IN_REGIONS } from "../domain/catalogue.ts";
import { FieldImportError, runFieldImportOnWorker } from "../field/run.ts";
import { HttpProblem } from "../domain/problem.ts";
import { storageProblem } from "../http/storage-gate.ts";
import { PushRefusal } from "../push/push.ts";
import { provisionSimAgentsThrough } from "../sim/live.ts";
import { CONTROL_ROUTES, controlSocketPath, type AgentList, type ChangedUser, type CreatedAgent, type ImportedField, type RotatedPushKey, type SchemaState, type SimulatorAgents } from "./protocol.ts";

const MAX_BODY_BYTES = 64 * 1024;
const MAX_SIMULATOR_AGENTS = 10_000;
/** Bits taken off the socket's mode while it is bound, so it is never usable by others, not even for an instant. */
const OWNER_ONLY_UMASK = 0o177;

export interface ControlSocket {
  readonly path: string;
  close(): Promise<void>;
}

type Body = Readonly<Record<string, unknown>>;

function field(body: Body, name: string): string {
  const value = body[name];
  if (typeof value !== "string") throw new HttpProblem(400, `The request needs "${name}" as a string.`);
  return value;
}

function optionalField(body: Body, name: string): string | null {
  const value = body[name];
  return value === undefined || value === null ? null : field(body, name);
}

async function readBody(request: Request): Promise<Body> {
  let value: unknown;
  try {
    value = await request.json();
  } catch {
    throw new HttpProblem(400, "The request body is not JSON.");
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) throw new HttpProblem(400, "The request body must be a JSON object.");
  return value as Body;
}

function json(status: number, value: CreatedAgent | ChangedUser | AgentList | SchemaState | SimulatorAgents | ImportedField | RotatedPushKey): Response {
  return new Response(JSON.stringify(value), { status, headers: { "content-type": "application/json" } });
}

/** Why the hub cannot serve its control socket; start-up stops with it rather than serve a hub the command line cannot reach. */
export class ControlSocketUnavailable extends Error {}

/** A socket left by a hub that was killed is replaced; anything else under that name is not ours to remove. */
function clearStale(path: string): void {
  let isSocket: boolean;
  try {
    isSocket = lstatSync(path).isSocket();
  } catch {
    return;
  }
  if (!isSocket) throw new ControlSocketUnavailable(`${path} exists and is not a socket; move it away so that the command line can reach this hub`);
  try {
    rmSync(path, { force: true });
  } catch (error) {
    throw new ControlSocketUnavailable(`${path} holds a socket this hub cannot replace (${error instanceof Error ? error.message : String(error)}); remove it`);
  }
}

/**
 * Listens on `<db>.sock`. Only the hub holding the server lock calls this,
 * so a socket already there belongs to a hub that is gone. Returns null for
 * an in-memory database; throws ControlSocketUnavailable, naming the path,
 * when the socket cannot be made there. `reload` re-reads what
 * another connection changed (as for another process's commit); `importer`
 * is the field-import worker's script.
 */
export function startControlSocket(ctx: HubContext, options: { readonly reload: () => void; readonly importer: URL }): ControlSocket | null {
  if (ctx.db.path === ":memory:") return null;
  const path = controlSocketPath(ctx.db.path);
  const users = new UserAdmin(ctx.db, ctx.accounts, ctx.now, (id) => ctx.push.subscriptions.deleteOwnedBy(id));
  const agents = new AgentAdmin(ctx.db, ctx.config.catalogue, ctx.agents, ctx.live, ctx.ingest, ctx.now, ctx.events);

  const reads: Readonly<Record<string, () => Response>> = {
    [CONTROL_ROUTES.listAgents]: () => json(200, { agents: agents.list() }),
    [CONTROL_ROUTES.schema]: () =>
      json(200, { versions: ctx.db.sqlite.query<{ version: number }, []>("SELECT version FROM schema_migrations ORDER BY version").all().map((row) => row.version) }),
  };
  const changes: Readonly<Record<string, (body: Body) => Promise<Response>>> = {
    [CONTROL_ROUTES.createAgent]: async (body) => {
      const { agent, token } = agents.create(CLI_ACTOR, { region: field(body, "region"), provider: field(body, "provider"), label: optionalField(body, "label") });
      return json(201, { agent: { id: agent.id, provider: agent.provider, platform: agent.platform, region: agent.region, label: agent.label }, token });
    },
    [CONTROL_ROUTES.createUser]: async (body) => {
      const username = field(body, "username");
      const role = field(body, "role");
      if (role !== "admin" && role !== "user") throw new HttpProblem(400, `the role must be admin or user, not "${role}"`);
      if (findUserByName(ctx.db.orm, username)) throw new HttpProblem(409, `the username "${username}" is taken`);
      const user = await users.create(CLI_ACTOR, { username, role, password: field(body, "password"), email: null, name: null });
      return json(201, { user: { id: user.id, username: user.username, role: user.role } });
    },
    [CONTROL_ROUTES.resetPassword]: async (body) => {
      const username = field(body, "username");
      const row = findUserByName(ctx.db.orm, username);
      if (!row) throw new HttpProblem(404, `there is no user "${username}"`);
      const user = await users.update(CLI_ACTOR, row.id, { password: field(body, "password") });
      return json(200, { user: { id: user.id, username: user.username, role: user.role } });
    },
    [CONTROL_ROUTES.simulatorAgents]: async (body) => {
      const count = body["count"];
      if (typeof count !== "number" || !Number.isSafeInteger(count) || count < 1 || count > MAX_SIMULATOR_AGENTS) {
        throw new HttpProblem(400, `The request needs "count" as an integer from 1 to ${MAX_SIMULATOR_AGENTS}.`);
      }
      const made = provisionSimAgentsThrough(agents, CLI_ACTOR, ctx.config.catalogue.regions, count);
      return json(201, { agents: made.map((a) => ({ id: a.id, token: a.token, platform: a.platform, region: a.region.id })) });
    },
    [CONTROL_ROUTES.rotatePushKey]: async () => {
      try {
        const rotated = ctx.push.rotateKey();
        audit(ctx.db.orm, CLI_ACTOR, "push.rotateKey", "push:vapid", { dropped: rotated.dropped }, ctx.now());
        return json(200, rotated);
      } catch (error) {
        if (error instanceof PushRefusal) throw new HttpProblem(error.status, error.message);
        throw error;
      }
    },
    [CONTROL_ROUTES.importField]: async (body) => {
      const from = field(body, "from");
      if (!isAbsolute(from)) throw new HttpProblem(400, 'The request needs "from" as an absolute path.');
      const dryRun = body["dryRun"] === true;
      const progress: [number, number][] = [];
      const job = {
        db: ctx.db.path,
        from,
        dryRun,
        extraRegions: ctx.config.catalogue.regions.slice(BUILT_IN_REGIONS.length),
        key: loadOrCreateKey(ctx.db.path, ctx.config.secretKey).bytes,
        sessionSecret: ctx.config.sessionSecret,
        now: ctx.now(),
      };
      let result;
      try {
        result = await runFieldImportOnWorker(options.importer, job, (done, total) => progress.push([done, total]));
      } catch (error) {
        if (error instanceof FieldImportError) throw new HttpProblem(409, error.message);
        throw error;
      }
      if (!dryRun) {
        // At once, rather than at the watcher's next look; imported readings may be newer than the live values, which only a rebuild shows.
        options.reload();
        ctx.live.rebuildAll();
      }
      return json(dryRun ? 200 : 201, { counts: result.counts, refusedReadings: result.refusedReadings, passwordsToReset: result.passwordsToReset, shortened: result.shortened, source: result.source, progress });
    },
  };

  const answer = async (request: Request): Promise<Response> => {
    const route = new URL(request.url).pathname;
    const read = reads[route];
    const change = changes[route];
    try {
      if (read && request.method === "GET") return read();
      if (change && request.method === "POST") {
        const body = await readBody(request);
        await ctx.storage.writable();
        return await change(body);
      }
      if (read || change) throw new HttpProblem(405, `${route} takes ${read ? "GET" : "POST"}.`);
      throw new HttpProblem(404, `The control socket has no ${route}; is this command from another version of the hub?`);
    } catch (error) {
      if (error instanceof HttpProblem) return error.toResponse();
      const refusal = ctx.storage.refusalFor(error);
      if (refusal) return storageProblem(refusal).toResponse();
      ctx.log.error("a change from the command line failed", { route, error: error instanceof Error ? error.message : String(error) });
      return new HttpProblem(500, "The hub could not make the change; its log says why.").toResponse();
    }
  };

  clearStale(path);
  let server: Server<unknown>;
  const umask = process.umask(OWNER_ONLY_UMASK);
  try {
    server = Bun.serve({ unix: path, fetch: answer, maxRequestBodySize: MAX_BODY_BYTES, development: false });
  } catch (error) {
    throw new ControlSocketUnavailable(`cannot listen on the control socket ${path}: ${error instanceof Error ? error.message : String(error)}`);
  } finally {
    process.umask(umask);
  }
  try {
    chmodSync(path, 0o600);
  } catch (error) {
    void server.stop(true);
    throw new ControlSocketUnavailable(`cannot make the control socket ${path} owner-only: ${error instanceof Error ? error.message : String(error)}`);
  }
  return {
    path,
    async close() {
      await server.stop(true);
      try {
        rmSync(path, { force: true });
      } catch {
        // On a file system that turned read-only the socket cannot go; the next start replaces it.
      }
    },
  };
}
