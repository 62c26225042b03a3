/**
 * `hub simulate`: plays simulated agents against a running hub, or writes
 * days of simulated history straight into a database file.
 */
import { readSecretFile, type Env } from "../config/load.ts";
import { acquireServerLock, closeDatabase, migrate, openDatabase } from "../db/open.ts";
import { allSlots, backfill, BackfillError } from "../sim/backfill.ts";
import { playLive, provisionSimAgents, provisionSimAgentsViaApi, SIMULATOR_AGENT_LABEL, type SimAgent } from "../sim/live.ts";
import { sendToHub, writerFor } from "./control-client.ts";
import { CONTROL_ROUTES, type SimulatorAgents, type SimulatorAgentsRequest } from "../control/protocol.ts";
import { isPlatform, type Region } from "../domain/catalogue.ts";
import { CommandError, type Command } from "./command.ts";

const DEFAULT_SEED = 1;
const MAX_AGENTS = 10_000;
const MAX_BACKFILL_DAYS = 3650;

function integerFlag(name: string, value: string | undefined, min: number, max: number): number | undefined {
  if (value === undefined) return undefined;
  const n = /^\d+$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isSafeInteger(n) || n < min || n > max) throw new CommandError(`--${name} must be an integer from ${min} to ${max} (got "${value}")`);
  return n;
}

function hubUrl(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new CommandError(`--hub must be the hub's address, such as http://localhost:3000 (got "${value}")`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw new CommandError(`--hub must be an http or https address (got "${value}")`);
  return url.origin;
}

/**
 * The admin API key, from --api-key-file or HUB_API_KEY_FILE (a file holding
 * it), HUB_API_KEY, or --api-key: a key on the command line is visible to
 * every local user in the process list, so the other forms are the ones to
 * use. Flags win over the environment; a key and its file given together
 * are an error, as for the hub's own settings.
 */
export function simulateApiKey(flag: (name: string) => string | undefined, env: Env): string | undefined {
  const given = (value: string | undefined): value is string => value !== undefined && value !== "";
  if (given(flag("api-key")) && given(flag("api-key-file"))) throw new CommandError("give --api-key or --api-key-file, not both");
  const file = flag("api-key-file");
  if (given(file)) return readSecretFile(file, "--api-key-file");
  const direct = flag("api-key");
  if (given(direct)) return direct;
  if (given(env.HUB_API_KEY) && given(env.HUB_API_KEY_FILE)) throw new CommandError("set HUB_API_KEY or HUB_API_KEY_FILE, not both");
  if (given(env.HUB_API_KEY_FILE)) return readSecretFile(env.HUB_API_KEY_FILE, "HUB_API_KEY_FILE");
  return given(env.HUB_API_KEY) ? env.HUB_API_KEY : undefined;
}

/** The simulator's agents in `dbPath`: handed to the hub serving it, or written into the file when none does. */
async function provisionInDatabase(dbPath: string, regions: readonly Region[], count: number): Promise<SimAgent[]> {
  const writer = writerFor(dbPath);
  if (writer.kind === "hub") {
    const made = await sendToHub<SimulatorAgents>(writer, CONTROL_ROUTES.simulatorAgents, { count } satisfies SimulatorAgentsRequest);
    const byId = new Map(regions.map((r) => [r.id, r]));
    return made.agents.flatMap((a) => {
      const region = byId.get(a.region);
      return region && isPlatform(a.platform) ? [{ id: a.id, token: a.token, platform: a.platform, region }] : [];
    });
  }
  try {
    const db = openDatabase(dbPath);
    try {
      migrate(db);
      return provisionSimAgents(db, regions, count, Date.now());
    } finally {
      db.sqlite.close();
    }
  } finally {
    writer.release();
  }
}

/** Resolves on SIGINT or SIGTERM, or after `seconds` when given. */
function stopSignal(seconds: number | undefined): AbortController {
  const controller = new AbortController();
  const stop = (): void => {
    process.off("SIGINT", stop);
    process.off("SIGTERM", stop);
    controller.abort();
  };
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
  if (seconds !== undefined) setTimeout(stop, seconds * 1000);
  return controller;
}

export const simulate: Command = {
  name: "simulate",
  usage: "hub simulate --hub URL (--api-key-file FILE | --db FILE) --agents N [--speed X] | --backfill-days D  (or the key in HUB_API_KEY / HUB_API_KEY_FILE)",
  summary: "Play simulated agents against a running hub, or write days of simulated history into a database",
  flags: [
    { name: "hub", takesValue: true, arg: "URL", help: "The running hub to play agents against" },
    { name: "api-key", takesValue: true, arg: "KEY", help: "An admin's API key, to create the agents (visible to every local user in ps: prefer --api-key-file or HUB_API_KEY)" },
    { name: "api-key-file", takesValue: true, arg: "FILE", help: "A file holding the admin's API key" },
    { name: "agents", takesValue: true, arg: "N", help: "How many agents to create and play, spread over regions and platforms" },
    { name: "speed", takesValue: true, arg: "X", help: "How much faster than real time they play (default: 1)" },
    { name: "seed", takesValue: true, arg: "N", help: "The random seed, for the same simulated history again" },
    { name: "duration", takesValue: true, arg: "SECONDS", help: "Stop after this many seconds (default: until Ctrl-C)" },
    { name: "backfill-days", takesValue: true, arg: "D", help: "Write D days of simulated history straight into --db instead (no hub may serve it)" },
  ],
  words: 0,
  settings: ["db", "retentionDays"],
  async run({ config, args, out }) {
    const flag = (name: string) => args.command.get(name);
    const seed = integerFlag("seed", flag("seed"), 0, 0xffff_ffff) ?? DEFAULT_SEED;
    const days = integerFlag("backfill-days", flag("backfill-days"), 1, MAX_BACKFILL_DAYS);
    const hub = flag("hub");

    if (days !== undefined) {
      if (hub !== undefined || flag("agents") !== undefined) throw new CommandError("--backfill-days writes into --db directly; it takes no --hub or --agents");
      const lock = acquireServerLock(config.db);
      const db = openDatabase(config.db);
      try {
        migrate(db);
        const slots = allSlots(config.catalogue.regions);
        out(`writing ${days} days of simulated history (one reading a minute) for ${slots.length} platform × region pairs into ${config.db} …`);
        const result = backfill(db, { days, end: Date.now(), seed, slots });
        out(`wrote ${result.rows.toLocaleString("en-US")} readings in ${(result.ms / 1000).toFixed(1)} s, attributed to disabled agents labelled "simulated history"`);
        if (days > config.retentionDays) {
          out(`note: a hub keeps ${config.retentionDays} days (DATA_RETENTION_DAYS); serve this file with --retention-days ${days} or the older readings are pruned at start-up`);
        }
        return 0;
      } catch (error) {
        if (error instanceof BackfillError) throw new CommandError(error.message);
        throw error;
      } finally {
        closeDatabase(db);
        lock.release();
      }
    }

    if (hub === undefined) throw new CommandError('use "hub simulate --hub URL --api-key-file FILE --agents N" or "hub simulate --db FILE --backfill-days D"');
    const base = hubUrl(hub);
    const count = integerFlag("agents", flag("agents"), 1, MAX_AGENTS);
    if (count === undefined) throw new CommandError("--agents N is needed: how many agents to play");
    const speedText = flag("speed") ?? "1";
    const speed = Number(speedText);
    if (!/^\d+(\.\d+)?$/.test(speedText) || !(speed > 0) || speed > 100_000) throw new CommandError(`--speed must be a number above 0 and at most 100000 (got "${speedText}")`);
    const duration = integerFlag("duration", flag("duration"), 1, 365 * 86_400);

    const apiKey = simulateApiKey(flag, process.env);
    let agents;
    if (apiKey !== undefined) {
      try {
        agents = await provisionSimAgentsViaApi(base, apiKey, config.catalogue.regions, count);
      } catch (error) {
        throw new CommandError(`could not create the agents through the admin API: ${error instanceof Error ? error.message : String(error)}`);
      }
    } else {
      agents = await provisionInDatabase(config.db, config.catalogue.regions, count);
    }
    out(`playing ${agents.length} agents labelled "${SIMULATOR_AGENT_LABEL}" against ${base} at ${speed}× speed${duration ? ` for ${duration} s` : ""}; Ctrl-C stops`);
    const controller = stopSignal(duration);
    const stats = await playLive({ hubUrl: base, agents, seed, speed, signal: controller.signal, report: out });
    controller.abort();
    out(`stopped: ${stats.posted} readings accepted, ${stats.refused} refused, ${stats.skipped} skipped for outages, ${stats.errors} errors`);
    return 0;
  },
};
