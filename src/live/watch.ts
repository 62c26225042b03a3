/**
 * Notices commits made by other processes on the same database (the CLI's
 * `agent`, `user` and `migrate` commands) through SQLite's data_version, so
 * the server sees their changes within a second.
 */
import type { HubDb } from "../db/open.ts";

export const WATCH_INTERVAL_MS = 500;

export class ExternalChanges {
  private version: number;
  private timer: ReturnType<typeof setInterval> | null = null;
  private readonly query;

  constructor(
    db: HubDb,
    private readonly onChange: () => void,
  ) {
    this.query = db.sqlite.query<{ data_version: number }, []>("PRAGMA data_version");
    this.version = this.read();
  }

  private read(): number {
    return this.query.get()?.data_version ?? 0;
  }

  /** Calls onChange if another connection committed since the last check. */
  check(): void {
    const current = this.read();
    if (current === this.version) return;
    this.version = current;
    this.onChange();
  }

  start(): void {
    this.timer ??= setInterval(() => {
      try {
        this.check();
      } catch {
        // the database is closing or unavailable; /healthz reports it
      }
    }, WATCH_INTERVAL_MS);
    this.timer.unref?.();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }
}
