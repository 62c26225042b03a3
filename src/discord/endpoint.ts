/**
 * The interactions endpoint's work once the route has the raw body: the
 * signature first (Discord's own `discord-interactions` checks Ed25519 over
 * the timestamp and the body), then the payload, then the answer from the
 * hub's memory. Loaded only by a hub with Discord configured.
 */
import { verifyKey } from "discord-interactions";
import type { HubContext } from "../context.ts";
import { listEvents } from "../domain/events.ts";
import { patternWeeks, WEEK_MS, weekHourPatterns, type PatternCell } from "../domain/patterns.ts";
import type { View } from "./answers.ts";
import { answer, type Answer } from "./interactions.ts";
import { loadWords } from "./words.ts";

/** Discord's requests older or newer than this are refused, so a captured one cannot be replayed later. */
export const MAX_CLOCK_SKEW_MS = 5 * 60_000;
/** The largest body taken: an interaction is a few kilobytes. */
export const MAX_INTERACTION_BYTES = 64 * 1024;
const HOUR_MS = 3_600_000;
const SIGNATURE = /^[0-9a-f]{128}$/i;
const TIMESTAMP = /^\d{1,12}$/;

/** Why a request was not taken; each is a 401 (or a 400 for a signed body that is not an interaction). */
export type Refusal = "missing_signature" | "stale_timestamp" | "bad_signature" | "invalid_body";

export type Outcome = { readonly ok: true; readonly answer: Answer } | { readonly ok: false; readonly refusal: Refusal };

export interface DiscordEndpoint {
  /** Whether a request carries the two headers at all: checked before its body is read. */
  signed(headers: Headers): boolean;
  handle(headers: Headers, raw: Uint8Array): Promise<Outcome>;
}

/** The hub's memory as the answers read it: the live payloads, the cached forecasts, the event schedule, and the week's patterns kept an hour. */
function hubView(ctx: HubContext, patterns: Map<string, { hour: number; cells: PatternCell[] }>): View {
  const now = ctx.now();
  return {
    catalogue: ctx.config.catalogue,
    origin: ctx.config.origin,
    now,
    incentives: (platform) => ctx.live.current(platform).content,
    forecast: (platform, region) => ctx.forecasts.get(platform, region),
    events: () => listEvents(now, ctx.live.visibleEvents()),
    patterns: (platform, region) => {
      const key = `${platform}\u0000${region}`;
      const hour = Math.floor(now / HOUR_MS);
      const kept = patterns.get(key);
      if (kept && kept.hour === hour) return kept.cells;
      const weeks = patternWeeks(undefined, ctx.config.retentionDays);
      const cells = weekHourPatterns(ctx.readings.series(platform, region, now - weeks * WEEK_MS, now));
      patterns.set(key, { hour, cells });
      return cells;
    },
  };
}

export async function createDiscordEndpoint(ctx: HubContext, publicKeyHex: string): Promise<DiscordEndpoint> {
  await loadWords();
  // Imported once, not on every request: verifyKey takes the CryptoKey as well as the hex.
  const key = await crypto.subtle.importKey("raw", Buffer.from(publicKeyHex, "hex"), { name: "Ed25519" }, false, ["verify"]);
  const patterns = new Map<string, { hour: number; cells: PatternCell[] }>();
  const policy = { answers: () => !ctx.settings.get().requireAuth || ctx.config.discordAllowWithRequireAuth };
  return {
    signed: (headers) => SIGNATURE.test(headers.get("x-signature-ed25519") ?? "") && TIMESTAMP.test(headers.get("x-signature-timestamp") ?? ""),
    async handle(headers, raw) {
      const signature = headers.get("x-signature-ed25519") ?? "";
      const timestamp = headers.get("x-signature-timestamp") ?? "";
      if (!SIGNATURE.test(signature) || !TIMESTAMP.test(timestamp)) return { ok: false, refusal: "missing_signature" };
      if (!(await verifyKey(raw, signature, timestamp, key))) return { ok: false, refusal: "bad_signature" };
      // Checked after the signature, so the timestamp is Discord's own and not one a forger chose.
      if (Math.abs(ctx.now() - Number(timestamp) * 1000) > MAX_CLOCK_SKEW_MS) return { ok: false, refusal: "stale_timestamp" };
      let interaction: unknown;
      try {
        interaction = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(raw));
      } catch {
        return { ok: false, refusal: "invalid_body" };
      }
      if (interaction === null || typeof interaction !== "object" || Array.isArray(interaction)) return { ok: false, refusal: "invalid_body" };
      return { ok: true, answer: answer(hubView(ctx, patterns), policy, interaction) };
    },
  };
}
