/** Simulated readings of one slot over a span of time, one every step, with the agent's outages left out. */
import type { ReadingSeries } from "../domain/forecast.ts";
import { HOUR_MS, type ZoneClock } from "../domain/timezone.ts";
import { inOutage, readingAt, refreshStart, type SimReading, type SlotModel } from "./model.ts";

export type ReadingVisitor = (at: number, reading: SimReading) => void;

/**
 * Calls `visit` for every simulated reading in [from, to), at whole multiples
 * of `stepMs`, oldest first. Values are computed once per game refresh and
 * outages once per hour, which keeps a year of minutes cheap.
 */
export function eachSimulatedReading(model: SlotModel, clock: ZoneClock, from: number, to: number, stepMs: number, visit: ReadingVisitor): void {
  let refresh = Number.NaN;
  let reading: SimReading = { survivor: 0, killer: 0, ratio: 1 };
  let hour = Number.NaN;
  let down = false;
  for (let at = Math.ceil(from / stepMs) * stepMs; at < to; at += stepMs) {
    const h = Math.floor(at / HOUR_MS);
    if (h !== hour) {
      hour = h;
      down = inOutage(model, at);
    }
    if (down) continue;
    const r = refreshStart(at);
    if (r !== refresh) {
      refresh = r;
      reading = readingAt(model, at, clock);
    }
    visit(at, reading);
  }
}

/** The same readings as parallel arrays, the shape the forecast reads. */
export function simulatedSeries(model: SlotModel, clock: ZoneClock, from: number, to: number, stepMs: number): ReadingSeries {
  const t: number[] = [];
  const survivor: number[] = [];
  const killer: number[] = [];
  eachSimulatedReading(model, clock, from, to, stepMs, (at, reading) => {
    t.push(at);
    survivor.push(reading.survivor);
    killer.push(reading.killer);
  });
  return { length: t.length, t: Float64Array.from(t), survivor: Int32Array.from(survivor), killer: Int32Array.from(killer) };
}
