/**
 * Notices a clock that has gone back behind the stored readings (a bad NTP
 * sync after running ahead): the readings stamped "in the future" cannot be
 * live (LiveStore ignores them), and the operator is told once, in the log
 * and as hub_clock_behind_seconds.
 */
import type { HubDb } from "../db/open.ts";
import { MAX_FUTURE_MS } from "../domain/readings.ts";
import type { Logger } from "../log.ts";

/** How often the clock is compared with the stored readings while the hub runs. */
const CHECK_INTERVAL_MS = 30_000;

export class ClockCheck {
  private readonly newest;
  private warned = false;
  private timer: ReturnType<typeof setInterval> | null = null;

  constructor(
    db: HubDb,
    private readonly now: () => number,
    private readonly log: Logger,
  ) {
    this.newest = db.sqlite.query<{ at: number | null }, []>("SELECT MAX(measured_at) AS at FROM readings");
  }

  /** Seconds the clock is behind the newest stored reading, when that is more than the 60 s a reading may lead; else 0. */
  behindSeconds(): number {
    const newest = this.newest.get()?.at ?? null;
    const behind = newest === null ? 0 : newest - this.now();
    return behind > MAX_FUTURE_MS ? Math.round(behind / 1000) : 0;
  }

  /** Logs a warning the first time the clock is found behind. */
  check(): number {
    const behind = this.behindSeconds();
    if (behind > 0 && !this.warned) {
      this.warned = true;
      this.log.warn("the clock is behind the newest stored reading: readings stamped in the future are not shown live until their time comes; check the time sync (NTP)", {
        behindSeconds: behind,
      });
    }
    return behind;
  }

  start(): void {
    this.check();
    this.timer ??= setInterval(() => {
      try {
        this.check();
      } catch {
        // the database does not answer; /healthz says so
      }
    }, CHECK_INTERVAL_MS);
    this.timer.unref?.();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }
}
