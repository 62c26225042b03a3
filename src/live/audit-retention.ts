/**
 * Audit rows older than AUDIT_RETENTION_DAYS are pruned at start-up and then
 * hourly, like readings (see retention.ts): in batches, yielding between
 * them, so the first prune of a large log never holds up a request.
 */
import { pruneAuditBatch } from "../db/audit.ts";
import type { HubDb } from "../db/open.ts";
import { DAY_MS } from "../domain/timezone.ts";
import type { Logger } from "../log.ts";
import { deleteInBatches, PeriodicPrune, PRUNE_INTERVAL_MS, type StorageRefusals } from "./retention.ts";

export class AuditRetention extends PeriodicPrune {
  private readonly retentionMs: number;

  constructor(
    private readonly db: HubDb,
    retentionDays: number,
    private readonly now: () => number,
    private readonly log: Logger,
    private readonly storageRefusal: StorageRefusals,
    intervalMs = PRUNE_INTERVAL_MS,
  ) {
    super(intervalMs);
    this.retentionMs = retentionDays * DAY_MS;
  }

  protected async pruneInBatches(): Promise<number> {
    const before = this.now() - this.retentionMs;
    let removed = 0;
    try {
      removed = await deleteInBatches((limit) => pruneAuditBatch(this.db, before, limit), () => this.stopped);
    } catch (error) {
      if (!this.storageRefusal(error)) this.log.error("pruning old audit rows failed", { error });
    }
    if (removed > 0) this.log.info("old audit rows pruned", { removed, before: new Date(before).toISOString() });
    return removed;
  }
}
