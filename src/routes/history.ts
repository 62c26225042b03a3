/** Reads of a region's stored readings: history, activity and the forecast (under the read gate). */
import { Elysia, t } from "elysia";
import type { HubContext } from "../context.ts";
import { bucketWidthFor, MAX_HISTORY_POINTS, resolveHistoryWindow } from "../domain/history.ts";
import { PATTERN_WEEKS, patternWeeks, WEEK_MS, weekHourPatterns } from "../domain/patterns.ts";
import { DAY_MS } from "../domain/timezone.ts";
import type { Access } from "../http/access.ts";
import { HttpProblem } from "../domain/problem.ts";
import { integerQuery, PlatformRegionParams, problems, queryInteger, readCacheControl, requirePlatform, requireRegion } from "../http/schemas.ts";

export const ACTIVITY_LIMITS = { min: 1, max: 50, default: 10 } as const;

const epochMs = (description: string) => t.Integer({ description: `${description} (epoch milliseconds)` });
const bonus = (role: string) => t.Integer({ description: `${role} bonus in percent` });

const HistoryPointSchema = t.Object({ t: epochMs("Time of the reading, or start of its bucket"), survivor: bonus("Survivor"), killer: bonus("Killer") });

const HistoryRangeSchema = t.Object(
  {
    platform: t.String(),
    region: t.String(),
    resolution: t.Union([t.Literal("raw"), t.Literal("bucketed")], {
      description: `raw: one point per reading (at most ${MAX_HISTORY_POINTS} in the window); bucketed: one point per non-empty bucket`,
    }),
    bucketMs: t.Integer({ minimum: 0, description: "Bucket width; 0 when raw" }),
    firstAt: t.Nullable(epochMs("The region's oldest stored reading inside the retention window")),
    lastAt: t.Nullable(epochMs("The region's newest stored reading inside the retention window")),
    points: t.Array(HistoryPointSchema, { description: "Oldest first. A bucket's point carries the values of its last reading, never an average." }),
  },
  {
    title: "HistoryRangePayload",
    examples: [
      {
        platform: "Windows",
        region: "eu-west-1",
        resolution: "bucketed",
        bucketMs: 3_600_000,
        firstAt: 1_761_000_000_000,
        lastAt: 1_763_747_045_123,
        points: [
          { t: 1_763_740_800_000, survivor: 0, killer: 75 },
          { t: 1_763_744_400_000, survivor: 0, killer: 50 },
        ],
      },
    ],
  },
);

const HistoryQuery = t.Object({
  from: t.Optional(
    integerQuery({
      description: "Start of the window, epoch milliseconds (an integer). Default: to − 24 h. Raised to to − DATA_RETENTION_DAYS; must be before to.",
      examples: [1_763_661_600_000],
    }),
  ),
  to: t.Optional(integerQuery({ description: "End of the window, epoch milliseconds (an integer). Default and latest: now.", examples: [1_763_748_000_000] })),
});

const ActivityEntrySchema = t.Object({
  t: epochMs("When the reading was measured"),
  survivor: bonus("Survivor"),
  killer: bonus("Killer"),
  ratio: t.Number({ description: "Killer:survivor queue ratio, rounded to 2 decimals" }),
});

const ActivitySchema = t.Object(
  {
    platform: t.String(),
    region: t.String(),
    recent: t.Array(ActivityEntrySchema, { description: "The newest readings, newest first" }),
    changes: t.Array(ActivityEntrySchema, {
      description: "The newest readings whose survivor or killer differs from the reading before them (the first reading counts), newest first",
    }),
  },
  {
    title: "ActivityPayload",
    examples: [
      {
        platform: "Windows",
        region: "eu-west-1",
        recent: [{ t: 1_763_747_045_123, survivor: 0, killer: 75, ratio: 2.4 }],
        changes: [{ t: 1_763_740_000_000, survivor: 0, killer: 75, ratio: 2.31 }],
      },
    ],
  },
);

const ActivityQuery = t.Object({
  limit: t.Optional(
    integerQuery({
      description: `How many readings each list holds: an integer from ${ACTIVITY_LIMITS.min} to ${ACTIVITY_LIMITS.max} (default ${ACTIVITY_LIMITS.default})`,
      minimum: ACTIVITY_LIMITS.min,
      maximum: ACTIVITY_LIMITS.max,
      examples: [10],
    }),
  ),
});

const level = (description: string) => t.Integer({ description });

const ForecastPointSchema = t.Object(
  {
    t: epochMs("Start of the forecast hour (a whole UTC hour)"),
    survivor: level("Most likely survivor bonus: a level that was actually observed"),
    survivorLo: level("Low end of the band: min(25th percentile, most likely)"),
    survivorHi: level("High end of the band: max(75th percentile, most likely)"),
    killer: level("Most likely killer bonus"),
    killerLo: level("Low end of the killer band"),
    killerHi: level("High end of the killer band"),
  },
  { title: "ForecastPoint" },
);

const ForecastSchema = t.Object(
  {
    platform: t.String(),
    region: t.String(),
    generatedAt: epochMs("When this forecast was computed"),
    horizonHours: t.Integer({ description: "Always 24" }),
    confidence: t.Union([t.Literal("low"), t.Literal("medium"), t.Literal("high")], {
      description: "high: at least 14 days of span and 168 hourly values; medium: at least 4 days; else low",
    }),
    points: t.Array(ForecastPointSchema, { description: "24 hourly points, the first at ceil(now / 1 h) × 1 h; empty without readings" }),
    past: t.Array(ForecastPointSchema, { description: "The forecast the model made 24 h ago from the readings it had then (a leak-free hindcast)" }),
    actual: t.Array(HistoryPointSchema, { description: "The readings of the last 24 h, oldest first" }),
  },
  {
    title: "ForecastBody",
    examples: [
      {
        platform: "Windows",
        region: "eu-west-1",
        generatedAt: 1_763_747_045_123,
        horizonHours: 24,
        confidence: "high",
        points: [{ t: 1_763_748_000_000, survivor: 0, survivorLo: 0, survivorHi: 25, killer: 75, killerLo: 50, killerHi: 75 }],
        past: [{ t: 1_763_661_600_000, survivor: 0, survivorLo: 0, survivorHi: 0, killer: 50, killerLo: 25, killerHi: 75 }],
        actual: [{ t: 1_763_661_845_000, survivor: 0, killer: 50 }],
      },
    ],
  },
);

const share = (role: string) => t.Number({ minimum: 0, maximum: 1, description: `Fraction of the hour's readings with a ${role} bonus above 0` });
const median = (role: string) => t.Nullable(t.Integer({ description: `Median ${role} bonus in percent among those readings (an observed level); null when none` }));

const PatternsSchema = t.Object(
  {
    platform: t.String(),
    region: t.String(),
    weeks: t.Integer({ minimum: PATTERN_WEEKS.min, maximum: PATTERN_WEEKS.max, description: "The weeks the cells summarise (after clamping)" }),
    firstAt: t.Nullable(
      epochMs("The oldest reading the cells summarise; later than the window's start when the region's readings do not go back that far (a new hub, the demo), null when there are none"),
    ),
    timeZone: t.Literal("UTC", { description: "The cells' time zone; clients shift them to the viewer's" }),
    cells: t.Array(
      t.Object({
        day: t.Integer({ minimum: 0, maximum: 6, description: "Weekday, 0 = Monday (UTC)" }),
        hour: t.Integer({ minimum: 0, maximum: 23, description: "Hour of the day (UTC)" }),
        readings: t.Integer({ minimum: 0, description: "Readings in this weekday-hour over the window" }),
        survivorShare: share("survivor"),
        killerShare: share("killer"),
        survivorMedian: median("survivor"),
        killerMedian: median("killer"),
      }),
      { minItems: 168, maxItems: 168, description: "168 cells, Monday 00:00 UTC first, then hour by hour" },
    ),
  },
  {
    title: "PatternsPayload",
    examples: [
      {
        platform: "Windows",
        region: "eu-west-1",
        weeks: 4,
        firstAt: 1_761_000_000_000,
        timeZone: "UTC",
        cells: [{ day: 0, hour: 0, readings: 240, survivorShare: 0.1, killerShare: 0.75, survivorMedian: 25, killerMedian: 75 }],
      },
    ],
  },
);

const PatternsQuery = t.Object({
  weeks: t.Optional(
    integerQuery({
      description: `Weeks to summarise, an integer from ${PATTERN_WEEKS.min} to ${PATTERN_WEEKS.max}. Default: min(${PATTERN_WEEKS.default}, the whole weeks DATA_RETENTION_DAYS holds); larger values are clamped to those.`,
      minimum: PATTERN_WEEKS.min,
      maximum: PATTERN_WEEKS.max,
      examples: [8],
    }),
  ),
});

function activityLimit(raw: string | undefined): number {
  if (raw === undefined) return ACTIVITY_LIMITS.default;
  const n = /^\d+$/.test(raw) ? Number(raw) : Number.NaN;
  if (!Number.isInteger(n) || n < ACTIVITY_LIMITS.min || n > ACTIVITY_LIMITS.max) {
    const message = `limit must be an integer from ${ACTIVITY_LIMITS.min} to ${ACTIVITY_LIMITS.max}.`;
    throw new HttpProblem(400, message, { errors: [{ location: "query.limit", message, value: raw.slice(0, 100) }] });
  }
  return n;
}

export function historyRoutes(ctx: HubContext, access: Access) {
  const { config, settings, readings, forecasts } = ctx;
  const slot = (params: { platform: string; region: string }) => ({
    platform: requirePlatform(params.platform),
    region: requireRegion(config.catalogue, params.region),
  });
  return new Elysia({ name: "routes/history", prefix: "/api/v1/platforms/:platform/regions/:region" })
    .use(access.plugin)
    .get(
      "/history",
      ({ params, query, set }) => {
        const { platform, region } = slot(params);
        const window = resolveHistoryWindow({ from: query.from, to: query.to, now: ctx.now(), retentionMs: config.retentionDays * DAY_MS });
        if (!window.ok) throw new HttpProblem(400, window.detail, { errors: [{ location: window.location, message: window.detail }] });
        // Raised to the retention window itself, not only to `to` − retention, so an old `to` cannot reach readings not yet pruned, and the bucket width follows what can show.
        const from = Math.max(window.from, readings.oldestVisible());
        const { to } = window;
        set.headers["cache-control"] = readCacheControl(settings.get().requireAuth, 60);
        return ctx.metrics.time("history", () => {
          const { firstAt, lastAt } = readings.extent(platform, region);
          if (readings.countUpTo(platform, region, from, to, MAX_HISTORY_POINTS + 1) <= MAX_HISTORY_POINTS) {
            return { platform, region, resolution: "raw" as const, bucketMs: 0, firstAt, lastAt, points: readings.raw(platform, region, from, to) };
          }
          const bucketMs = bucketWidthFor(to - from);
          return { platform, region, resolution: "bucketed" as const, bucketMs, firstAt, lastAt, points: readings.buckets(platform, region, from, to, bucketMs) };
        });
      },
      {
        access: "public-read",
        params: PlatformRegionParams,
        query: HistoryQuery,
        response: { 200: HistoryRangeSchema, ...problems(400, 401, 404) },
        detail: {
          tags: ["incentives"],
          summary: "Region history",
          description:
            "Readings of one region in the window [from, to], both ends included. `to` defaults to now and is clamped to it; `from` defaults to " +
            "`to` − 24 h, must be before `to`, and is raised to `to` − DATA_RETENTION_DAYS; non-integers are a 400. Up to 1500 readings come one " +
            "by one (`resolution: raw`, `bucketMs: 0`); beyond that they are bucketed with the narrowest width of 1 m, 5 m, 15 m, 30 m, 1 h, 3 h, " +
            "6 h, 12 h, 1 d, 7 d giving at most 1500 buckets, aligned to the epoch. Each non-empty bucket gives one point at its start with the " +
            "values of its last reading (never an average). `firstAt` and `lastAt` are the region's whole stored extent. Nothing older than DATA_RETENTION_DAYS ever shows, " +
            "whether or not it has been pruned yet.",
        },
      },
    )
    .get(
      "/activity",
      ({ params, query, set }) => {
        const { platform, region } = slot(params);
        const limit = activityLimit(query.limit);
        set.headers["cache-control"] = readCacheControl(settings.get().requireAuth, 30);
        return { platform, region, recent: readings.recent(platform, region, limit), changes: readings.changes(platform, region, limit) };
      },
      {
        access: "public-read",
        params: PlatformRegionParams,
        query: ActivityQuery,
        response: { 200: ActivitySchema, ...problems(400, 401, 404) },
        detail: {
          tags: ["incentives"],
          summary: "Region activity",
          description:
            "The newest readings of one region, and the newest changes: readings, over everything stored for the region inside the retention window, whose survivor or " +
            "killer differs from the reading before them (the first reading counts). Both newest first; equal times are in order of arrival.",
        },
      },
    )
    .get(
      "/patterns",
      ({ params, query, set }) => {
        const { platform, region } = slot(params);
        const weeks = patternWeeks(queryInteger(query.weeks, "weeks", { minimum: PATTERN_WEEKS.min, maximum: PATTERN_WEEKS.max }), config.retentionDays);
        const now = ctx.now();
        set.headers["cache-control"] = readCacheControl(settings.get().requireAuth, 3600);
        const series = readings.series(platform, region, now - weeks * WEEK_MS, now);
        return { platform, region, weeks, firstAt: series.length === 0 ? null : (series.t[0] ?? null), timeZone: "UTC" as const, cells: weekHourPatterns(series) };
      },
      {
        access: "public-read",
        params: PlatformRegionParams,
        query: PatternsQuery,
        response: { 200: PatternsSchema, ...problems(400, 401, 404) },
        detail: {
          tags: ["incentives"],
          summary: "Region patterns (when to play)",
          description:
            "For each weekday and hour in UTC (168 cells, Monday 00 first), over the last `weeks` weeks (from `firstAt` when the readings start later): how many readings there were, the fraction with a " +
            "survivor (killer) bonus above 0, and the median bonus among those (the lower middle value for an even count, so it is a level that was read). " +
            "Clients shift the cells to the viewer's time zone. Cacheable for an hour.",
        },
      },
    )
    .get(
      "/forecast",
      ({ params, set }) => {
        const { platform, region } = slot(params);
        set.headers["cache-control"] = readCacheControl(settings.get().requireAuth, 300);
        return forecasts.get(platform, region);
      },
      {
        access: "public-read",
        params: PlatformRegionParams,
        response: { 200: ForecastSchema, ...problems(401, 404) },
        detail: {
          tags: ["incentives"],
          summary: "Region forecast",
          description:
            "A 24-hour forecast of one region's bonuses. The readings of the last FORECAST_WINDOW_DAYS become one value per local hour (the " +
            "region's time zone); a climatology of those, weighted by recency (half-life 10 days) at the finest of day-of-week × hour, " +
            "weekday-or-weekend × hour, hour, or all that has 3 observations, is blended with persistence of the latest reading's departure " +
            "from the usual for its hour (weight exp(−h / 4) after h hours). Values are observed levels with a 25th–75th percentile band " +
            "widened to hold the value. `past` is the forecast made 24 h ago from what was known " +
            "then; `actual` the readings since. Cached until the next hour or the region's next reading.",
        },
      },
    );
}
