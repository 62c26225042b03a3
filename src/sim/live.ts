/**
 * Plays simulated agents against a running hub over HTTP, as real agents
 * would: each asks for its assignment, posts a reading when its phase comes
 * round (at once when told to probe), takes the new assignment from every
 * reply, waits out a 429, and stays quiet through its outages. Readings are
 * measured now (the hub accepts nothing else); `speed` only makes the
 * simulated world behind them run faster.
 */
import type { AgentAdmin } from "../admin/agents.ts";
import { newAgentToken, sha256Hex } from "../domain/tokens.ts";
import type { Actor } from "../db/audit.ts";
import { insertAgent } from "../db/agents.ts";
import type { HubDb } from "../db/open.ts";
import type { Assignment } from "../domain/cadence.ts";
import { isPlatform, PLATFORMS, type Platform, type Region } from "../domain/catalogue.ts";
import { ZoneClock } from "../domain/timezone.ts";
import { providerOf } from "./backfill.ts";
import { hashInts, seededRandom } from "./random.ts";
import { GAME_REFRESH_SECONDS, inOutage, readingAt, SIM_GAME_VERSION, slotModel, type SlotModel } from "./model.ts";

/** Label of the agents the live simulator plays; a later run reuses them with new tokens. */
export const SIMULATOR_AGENT_LABEL = "simulator";
const RETRY_AFTER_ERROR_MS = 10_000;
const REQUEST_TIMEOUT_MS = 10_000;

export interface SimAgent {
  readonly id: number;
  readonly token: string;
  readonly platform: Platform;
  readonly region: Region;
}

/**
 * The (platform, region) of the n-th simulated agent, for any number of
 * regions: agents go round the platforms × regions pairs, every pair once
 * before any pair twice, so `count` agents cover each pair ⌊count / pairs⌋ or
 * ⌈count / pairs⌉ times. Consecutive agents take different platforms and,
 * with more than two regions, different regions. Pair k takes platform
 * k mod platforms and region (k + ⌊k / lcm⌋) mod regions: the first lcm
 * pairs are the Chinese remainders, and each later block of lcm shifts the
 * region by one, so the gcd(platforms, regions) blocks meet distinct pairs.
 */
export function slotOfAgent(n: number, regions: readonly Region[]): { platform: Platform; region: Region } {
  const r = regions.length;
  const p = PLATFORMS.length;
  const k = n % (p * r);
  const block = Math.floor(k / leastCommonMultiple(p, r));
  const platform = PLATFORMS[k % p] ?? "Windows";
  const region = regions[(k + block) % r];
  if (!region) throw new Error("the catalogue has no regions");
  return { platform, region };
}

function leastCommonMultiple(a: number, b: number): number {
  let x = a;
  let y = b;
  while (y !== 0) [x, y] = [y, x % y];
  return (a / x) * b;
}

/**
 * Makes `count` enabled agents in the database, as `hub agent create` does,
 * reusing agents left by an earlier run (with fresh tokens) before creating
 * new ones. The running hub finds them by their token on the first request.
 */
export function provisionSimAgents(db: HubDb, regions: readonly Region[], count: number, now: number): SimAgent[] {
  const byId = new Map(regions.map((r) => [r.id, r]));
  const previous = db.sqlite
    .query<{ id: number; platform: Platform; region: string }, [string]>("SELECT id, platform, region FROM agents WHERE label = ? AND source = 'manual' ORDER BY id")
    .all(SIMULATOR_AGENT_LABEL)
    .filter((a) => byId.has(a.region));
  const refresh = db.sqlite.query<unknown, [string, number, number]>("UPDATE agents SET token_hash = ?, enabled = 1, updated_at = ? WHERE id = ?");
  const agents: SimAgent[] = [];
  db.sqlite.transaction(() => {
    for (let n = 0; n < count; n++) {
      const token = newAgentToken();
      const reused = previous[n];
      const reusedRegion = reused ? byId.get(reused.region) : undefined;
      if (reused && reusedRegion) {
        refresh.run(sha256Hex(token), now, reused.id);
        agents.push({ id: reused.id, token, platform: reused.platform, region: reusedRegion });
        continue;
      }
      const { platform, region } = slotOfAgent(n, regions);
      const agent = insertAgent(db.orm, { tokenHash: sha256Hex(token), provider: providerOf(platform), region: region.id, label: SIMULATOR_AGENT_LABEL, source: "manual" }, now);
      agents.push({ id: agent.id, token, platform, region });
    }
  })();
  return agents;
}

/**
 * The same through the hub's own admin code, for `hub simulate --db` beside
 * the hub serving that file (it reaches the hub over the control socket).
 */
export function provisionSimAgentsThrough(admin: AgentAdmin, actor: Actor, regions: readonly Region[], count: number): SimAgent[] {
  const byId = new Map(regions.map((r) => [r.id, r]));
  const previous = admin.list().filter((a) => a.label === SIMULATOR_AGENT_LABEL && a.source === "manual" && byId.has(a.region));
  const agents: SimAgent[] = [];
  for (let n = 0; n < count; n++) {
    const reused = previous[n];
    const reusedRegion = reused ? byId.get(reused.region) : undefined;
    if (reused && reusedRegion && isPlatform(reused.platform)) {
      if (!reused.enabled) admin.update(actor, reused.id, { enabled: true });
      agents.push({ id: reused.id, token: admin.rotateToken(actor, reused.id), platform: reused.platform, region: reusedRegion });
      continue;
    }
    const { platform, region } = slotOfAgent(n, regions);
    const created = admin.create(actor, { region: region.id, provider: providerOf(platform), label: SIMULATOR_AGENT_LABEL });
    agents.push({ id: created.agent.id, token: created.token, platform, region });
  }
  return agents;
}

interface AdminAgent {
  readonly id: number;
  readonly label: string | null;
  readonly platform: string;
  readonly region: string;
}

/**
 * The same through the admin API with an admin's API key: agents labelled
 * "simulator" left by an earlier run get new tokens, the rest are created.
 */
export async function provisionSimAgentsViaApi(hubUrl: string, apiKey: string, regions: readonly Region[], count: number): Promise<SimAgent[]> {
  const headers = { authorization: `Bearer ${apiKey}`, "content-type": "application/json" };
  const call = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
    const response = await fetch(`${hubUrl}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
    const text = await response.text();
    if (!response.ok) throw new Error(`${method} ${path} answered ${response.status}: ${text.slice(0, 200)}`);
    return JSON.parse(text) as T;
  };
  const byId = new Map(regions.map((r) => [r.id, r]));
  const { agents: listed } = await call<{ agents: AdminAgent[] }>("GET", "/api/v1/admin/agents");
  const previous = listed.filter((a) => a.label === SIMULATOR_AGENT_LABEL && byId.has(a.region));
  const agents: SimAgent[] = [];
  for (let n = 0; n < count; n++) {
    const reused = previous[n];
    const reusedRegion = reused ? byId.get(reused.region) : undefined;
    if (reused && reusedRegion && (PLATFORMS as readonly string[]).includes(reused.platform)) {
      await call("PATCH", `/api/v1/admin/agents/${reused.id}`, { enabled: true });
      const { token } = await call<{ token: string }>("POST", `/api/v1/admin/agents/${reused.id}/token`);
      agents.push({ id: reused.id, token, platform: reused.platform as Platform, region: reusedRegion });
      continue;
    }
    const { platform, region } = slotOfAgent(n, regions);
    const created = await call<{ agent: { id: number }; token: string }>("POST", "/api/v1/admin/agents", { region: region.id, provider: providerOf(platform), label: SIMULATOR_AGENT_LABEL });
    agents.push({ id: created.agent.id, token: created.token, platform, region });
  }
  return agents;
}

/**
 * When an agent should next read: at its phase (phaseOffsetSeconds past a
 * multiple of its period, the middle of [pollMin, pollMax]), moved by up to
 * half the window either way as `jitter` goes from 0 to 1 (0.5 is on the
 * dot), as real agents are never quite punctual; and never sooner than
 * pollMinSeconds after its last post, which keeps it clear of the
 * 0.8 × pollMinSeconds rule.
 */
export function nextPollAt(assignment: Assignment, now: number, lastPostAt: number | null, jitter = 0.5): number {
  const periodMs = ((assignment.pollMinSeconds + assignment.pollMaxSeconds) / 2) * 1000;
  const phaseMs = assignment.phaseOffsetSeconds * 1000;
  let next = Math.ceil((now - phaseMs) / periodMs) * periodMs + phaseMs;
  if (next <= now) next += periodMs;
  const earliest = lastPostAt === null ? now : lastPostAt + assignment.pollMinSeconds * 1000;
  while (next < earliest) next += periodMs;
  const shifted = next + (jitter - 0.5) * (assignment.pollMaxSeconds - assignment.pollMinSeconds) * 1000;
  return Math.round(Math.max(shifted, earliest, now));
}

export interface LiveStats {
  posted: number;
  refused: number;
  skipped: number;
  errors: number;
}

export interface LiveOptions {
  readonly hubUrl: string;
  readonly agents: readonly SimAgent[];
  readonly seed: number;
  /** How many times faster the simulated world runs than the clock. */
  readonly speed: number;
  /** Aborting stops every agent. */
  readonly signal: AbortSignal;
  readonly now?: () => number;
  readonly report?: (line: string) => void;
}

async function request(url: string, token: string, signal: AbortSignal, body?: unknown): Promise<Response> {
  const timeout = AbortSignal.timeout(REQUEST_TIMEOUT_MS);
  return await fetch(url, {
    method: body === undefined ? "GET" : "POST",
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.any([signal, timeout]),
  });
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, Math.max(0, ms));
    function done(): void {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    }
    signal.addEventListener("abort", done, { once: true });
  });
}

/** Runs every agent until the signal aborts (or an agent is refused for good); resolves to the totals. */
export async function playLive(options: LiveOptions): Promise<LiveStats> {
  const now = options.now ?? Date.now;
  const startedAt = now();
  const simulatedNow = (): number => startedAt + (now() - startedAt) * options.speed;
  const stats: LiveStats = { posted: 0, refused: 0, skipped: 0, errors: 0 };
  const clocks = new Map<string, ZoneClock>();
  const base = options.hubUrl.replace(/\/+$/, "");
  const report = options.report ?? (() => {});

  const play = async (agent: SimAgent): Promise<void> => {
    const clock = clocks.get(agent.region.tz) ?? new ZoneClock(agent.region.tz);
    clocks.set(agent.region.tz, clock);
    const model: SlotModel = slotModel(options.seed, agent.platform, agent.region.id);
    const random = seededRandom(hashInts(options.seed, agent.id));
    let assignment: Assignment | null = null;
    let lastPostAt: number | null = null;
    let wakeAt = now();
    while (!options.signal.aborted) {
      await sleep(wakeAt - now(), options.signal);
      if (options.signal.aborted) break;
      try {
        if (!assignment) {
          const response = await request(`${base}/api/v1/agent/assignment`, agent.token, options.signal);
          if (response.status === 401 || response.status === 403) {
            report(`agent ${agent.id} was refused (${response.status}); it stops`);
            return;
          }
          if (!response.ok) throw new Error(`assignment: HTTP ${response.status}`);
          assignment = (await response.json()) as Assignment;
          wakeAt = assignment.probeImmediately ? now() : nextPollAt(assignment, now(), lastPostAt, random());
          continue;
        }
        const simulated = simulatedNow();
        if (inOutage(model, simulated)) {
          stats.skipped++;
          wakeAt = nextPollAt(assignment, now(), lastPostAt, random());
          continue;
        }
        const reading = readingAt(model, simulated, clock);
        const postedAt = now();
        const response = await request(`${base}/api/v1/agent/readings`, agent.token, options.signal, {
          region: agent.region.id,
          platform: agent.platform,
          isReal: true,
          measuredAt: new Date(postedAt).toISOString(),
          survivor: reading.survivor,
          killer: reading.killer,
          ratio: reading.ratio,
          version: SIM_GAME_VERSION,
          refreshTimeSeconds: GAME_REFRESH_SECONDS,
        });
        if (response.status === 201) {
          stats.posted++;
          lastPostAt = postedAt;
          assignment = ((await response.json()) as { assignment: Assignment }).assignment;
          wakeAt = nextPollAt(assignment, now(), lastPostAt, random());
        } else if (response.status === 429) {
          stats.refused++;
          await response.body?.cancel();
          wakeAt = now() + Math.max(1, Number(response.headers.get("retry-after")) || 1) * 1000;
        } else if (response.status === 401 || response.status === 403) {
          report(`agent ${agent.id} was refused (${response.status}); it stops`);
          return;
        } else {
          stats.refused++;
          const problem = (await response.json().catch(() => ({}))) as { detail?: string };
          report(`agent ${agent.id}: reading refused (${response.status}): ${problem.detail ?? "no detail"}`);
          wakeAt = nextPollAt(assignment, now(), lastPostAt, random());
        }
      } catch (error) {
        if (options.signal.aborted) break;
        stats.errors++;
        report(`agent ${agent.id}: ${error instanceof Error ? error.message : String(error)}; retrying in ${RETRY_AFTER_ERROR_MS / 1000} s`);
        wakeAt = now() + RETRY_AFTER_ERROR_MS;
      }
    }
  };

  await Promise.all(options.agents.map((agent) => play(agent)));
  return stats;
}
