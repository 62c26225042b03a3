/** TypeBox schemas shared by several route groups, and small HTTP helpers for reads. */
import { t } from "elysia";
import type { TSchema } from "@sinclair/typebox";
import type { Catalogue, Platform } from "../domain/catalogue.ts";
import { PLATFORM_LABELS, PLATFORMS, isPlatform, unknownPlatform } from "../domain/catalogue.ts";
import { listOr } from "../domain/lists.ts";
import { HttpProblem } from "../domain/problem.ts";
import { ProblemSchema } from "./problem.ts";
import { platformSchema, platformStatusSchema } from "./vocabularies.ts";

export const JSON_TYPE = "application/json; charset=utf-8";

/**
 * A schema key naming the wire form to document in place of the schema that
 * checks it. Integer parameters are checked as digit strings, so that "1e3",
 * "0x10" or an id too large for a double is refused instead of coerced or
 * rounded, yet they are integers on the wire and say so in the description.
 */
export const DOCUMENT_AS = "x-document-as";

/** The largest id a path accepts: 15 digits, well inside a double's exact integers. */
export const MAX_ID = 999_999_999_999_999;

/**
 * Any string to the validator, documented as the named vocabulary it belongs
 * to: for input the handler checks itself (so that an unknown value gets its
 * own problem, such as a 404 for an unknown platform) and for replies built
 * from plain strings.
 */
export function stringOf(documented: TSchema, description?: string) {
  return t.String({ ...(description === undefined ? {} : { description }), [DOCUMENT_AS]: documented });
}

/** An integer query parameter: any string to the router, read strictly by the handler (queryInteger), documented as the integer it must be. */
export function integerQuery(options: { description: string; minimum?: number; maximum?: number; examples: readonly number[] }) {
  const { description, examples, ...range } = options;
  return t.String({
    description,
    [DOCUMENT_AS]: { type: "integer", format: "int64", ...range, examples },
  });
}

/** An optional integer query value read strictly (digits, an optional sign, within the range), or a 400 naming the parameter. */
export function queryInteger(raw: string | undefined, name: string, range: { minimum?: number; maximum?: number } = {}): number | undefined {
  if (raw === undefined) return undefined;
  const value = /^-?[0-9]{1,16}$/.test(raw) ? Number(raw) : Number.NaN;
  const { minimum = Number.MIN_SAFE_INTEGER, maximum = Number.MAX_SAFE_INTEGER } = range;
  if (!Number.isSafeInteger(value) || value < minimum || value > maximum) {
    const bounds = range.minimum !== undefined && range.maximum !== undefined ? ` from ${minimum} to ${maximum}` : "";
    const message = `${name} must be an integer${bounds}, written as plain digits.`;
    throw new HttpProblem(400, message, { errors: [{ location: `query.${name}`, message, value: raw.slice(0, 100) }] });
  }
  return value;
}

/** A path id: decoded to a number after its digits are checked, so it never loses precision. */
export function idParam(what: string) {
  return t
    .Transform(
      t.String({
        pattern: "^[1-9][0-9]{0,14}$",
        description: `${what} id`,
        [DOCUMENT_AS]: { type: "integer", format: "int64", minimum: 1, maximum: MAX_ID, examples: [1] },
      }),
    )
    .Decode((value) => Number(value))
    .Encode((value) => String(value));
}

/** `{ id }` path parameters. */
export const idParams = (what: string) => t.Object({ id: idParam(what) });

const isoTime = (description: string) => t.String({ format: "date-time", description });
const nullable = <T extends Parameters<typeof t.Nullable>[0]>(schema: T) => t.Nullable(schema);

export const PlatformParams = t.Object({
  platform: stringOf(platformSchema(), listOr(PLATFORMS.map((p) => `${p} (${PLATFORM_LABELS[p]})`))),
});

export const PlatformRegionParams = t.Object({
  platform: PlatformParams.properties.platform,
  region: t.String({ description: "A region id from the catalogue, such as eu-west-1", examples: ["eu-west-1"] }),
});

export const ActiveEventSchema = t.Object(
  {
    key: t.String(),
    label: t.String(),
    multiplier: t.Number({ exclusiveMinimum: 0 }),
    startsAt: isoTime("When the event starts"),
    endsAt: isoTime("When the event ends"),
  },
  { title: "ActiveEvent" },
);

export const RegionIncentiveSchema = t.Object(
  {
    region: t.String(),
    displayName: t.String(),
    flag: t.String({ description: "Flag emoji" }),
    survivor: t.Integer({ description: "Survivor bonus in percent (75 means +75 %)" }),
    killer: t.Integer({ description: "Killer bonus in percent" }),
    ratio: t.Number({
      description:
        "Killer:survivor queue ratio from the reading: killers per survivor waiting in the queue (high: many killers, a survivor bonus is likely; a killer bonus comes with a low ratio); 0 without a reading",
    }),
    isReal: t.Boolean({ description: "True once a real reading exists; a fallback is never shown as real" }),
    stale: t.Boolean({ description: "True without a reading or when it is older than the stale threshold" }),
    lastUpdated: nullable(isoTime("Time of the live reading")),
    since: nullable(isoTime("From when the region's current survivor and killer values have held without change, from the stored readings; null without a reading")),
  },
  { title: "RegionIncentive" },
);

const EXAMPLE_TIME = "2026-11-21T18:04:05.123Z";

export const IncentivesPayloadSchema = t.Object(
  {
    platform: platformSchema(),
    status: platformStatusSchema("error: no enabled agent; initializing: no reading yet; ok: at least one fresh reading; degraded: all readings stale"),
    statusReason: nullable(t.String()),
    updatedAt: nullable(isoTime("Time of the newest live reading")),
    version: nullable(t.String({ description: "Game version from the newest live reading" })),
    category: nullable(t.String({ description: "Category from the newest live reading" })),
    activeEvent: nullable(ActiveEventSchema),
    nextEvent: t.Nullable(ActiveEventSchema, {
      description:
        "The next bloodpoint event to start on this platform (hidden ones left out), or null. It changes the payload, so a newly scheduled, changed or hidden event reaches every open stream at once.",
    }),
    regions: t.Array(RegionIncentiveSchema),
    generatedAt: isoTime("When this payload was built"),
  },
  {
    title: "IncentivesPayload",
    examples: [
      {
        platform: "Windows",
        status: "ok",
        statusReason: null,
        updatedAt: EXAMPLE_TIME,
        version: "9.3.0",
        category: "default",
        activeEvent: null,
        nextEvent: null,
        regions: [
          { region: "eu-west-1", displayName: "EU West (Ireland)", flag: "🇮🇪", survivor: 0, killer: 75, ratio: 2.4, isReal: true, stale: false, lastUpdated: EXAMPLE_TIME, since: "2026-11-21T17:31:00.000Z" },
        ],
        generatedAt: EXAMPLE_TIME,
      },
    ],
  },
);

export const AssignmentSchema = t.Object(
  {
    region: t.String(),
    platform: stringOf(platformSchema()),
    pollMinSeconds: t.Integer({ minimum: 300 }),
    pollMaxSeconds: t.Integer({ minimum: 300 }),
    phaseOffsetSeconds: t.Integer({ minimum: 0, description: "Where in the period this agent polls, so a group's agents spread out" }),
    probeImmediately: t.Boolean({ description: "True for the group's first agent while the game's refresh time is unknown" }),
  },
  {
    title: "Assignment",
    examples: [{ region: "eu-west-1", platform: "Windows", pollMinSeconds: 300, pollMaxSeconds: 399, phaseOffsetSeconds: 0, probeImmediately: true }],
  },
);

/** Common error responses, for the OpenAPI description of each route. */
export function problems<const S extends readonly number[]>(...statuses: S): { [K in S[number]]: typeof ProblemSchema } {
  return Object.fromEntries(statuses.map((status) => [status, ProblemSchema])) as { [K in S[number]]: typeof ProblemSchema };
}

export function requirePlatform(value: string): Platform {
  if (!isPlatform(value)) throw new HttpProblem(404, unknownPlatform(value));
  return value;
}

export function requireRegion(catalogue: Catalogue, value: string): string {
  if (!catalogue.hasRegion(value)) throw new HttpProblem(404, `Unknown region "${value}".`);
  return value;
}

/** Cache-Control for public reads: shared caching unless the hub requires sign-in. */
export function readCacheControl(requireAuth: boolean, maxAgeSeconds: number): string {
  return requireAuth ? "no-store" : `public, max-age=${maxAgeSeconds}, stale-while-revalidate=${4 * maxAgeSeconds}`;
}

/** Whether an If-None-Match header matches this ETag (weak comparison, lists and * allowed). */
export function etagMatches(header: string | null, etag: string): boolean {
  if (!header) return false;
  if (header.trim() === "*") return true;
  return header.split(",").some((candidate) => candidate.trim().replace(/^W\//, "") === etag);
}
