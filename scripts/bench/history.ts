/**
 * History over a one-year window of 500,000 readings of one region (SPEC
 * §15: under 50 ms), through the whole endpoint in-process. Baseline: the
 * obvious query, a GROUP BY over every reading of the window, in the same
 * run. Run alone with `bun scripts/bench/history.ts`.
 */
import { BUILT_IN_REGIONS } from "../../src/domain/catalogue.ts";
import { DAY_MS } from "../../src/domain/timezone.ts";
import { closeDatabase } from "../../src/db/open.ts";
import { backfill } from "../../src/sim/backfill.ts";
import { benchHub, get, ms, printBenchRows, ratio, scratch, scratchDb, time, type BenchRow } from "./common.ts";

const READINGS = 500_000;
const SPAN_MS = 365 * DAY_MS;
const BUDGET_MS = 50;

export async function historyBench(): Promise<BenchRow[]> {
  const dir = scratch("history");
  const db = scratchDb(dir.path);
  try {
    const end = Date.now();
    const region = BUILT_IN_REGIONS.find((r) => r.id === "eu-west-1");
    const neighbour = BUILT_IN_REGIONS.find((r) => r.id === "eu-west-2");
    if (!region || !neighbour) throw new Error("catalogue regions missing");
    // 500,000 readings of the measured region over the year (outages take a few), beside two other slots of the same density.
    const stepMs = Math.floor(SPAN_MS / (READINGS * 1.02));
    backfill(db, {
      days: 365,
      end,
      seed: 1,
      stepMs,
      slots: [
        { platform: "Windows", region },
        { platform: "Windows", region: neighbour },
        { platform: "EGS", region },
      ],
    });
    const stored = db.sqlite.query<{ n: number }, []>("SELECT COUNT(*) AS n FROM readings WHERE platform = 'Windows' AND region = 'eu-west-1'").get()?.n ?? 0;
    const hub = benchHub(db, ["--retention-days", "400"], () => end);
    const from = end - SPAN_MS;
    const path = `/api/v1/platforms/Windows/regions/eu-west-1/history?from=${from}&to=${end}`;
    let points = 0;
    const ours = await time(async () => {
      const body = (await (await get(hub, path)).json()) as { points: unknown[]; bucketMs: number };
      points = body.points.length;
    }, 30);
    const naive = db.sqlite.query<unknown, [number, number, number]>(
      "SELECT measured_at / ?3 * ?3 AS t, MAX(measured_at), survivor, killer FROM readings " +
        "WHERE platform = 'Windows' AND region = 'eu-west-1' AND measured_at BETWEEN ?1 AND ?2 GROUP BY 1 ORDER BY 1",
    );
    const baseline = await time(() => naive.all(from, end, 6 * 3_600_000), 10, 1);
    return [
      {
        figure: `History, 1-year window, ${stored.toLocaleString("en-US")} readings of one region (${points} buckets), median of ${ours.runs}`,
        value: `${ms(ours.median)} (p95 ${ms(ours.p95)})`,
        budget: `< ${BUDGET_MS} ms`,
        baseline: `GROUP BY over the window: ${ms(baseline.median)}`,
        ratio: ratio(ours.median, baseline.median),
        ok: ours.median < BUDGET_MS,
      },
    ];
  } finally {
    closeDatabase(db);
    dir.cleanup();
  }
}

if (import.meta.main) printBenchRows("History", await historyBench());
