/**
 * One signal per region of a platform's payload. A stream message sets only
 * the signals of regions whose values changed (keepUnchanged hands back the
 * previous object for the others, and a signal set to the object it holds
 * stays quiet), so only those regions' cards render again; the board around
 * them renders only when what it lays out changes (board-model's BoardShape).
 */
import { signal, type ReadonlySignal, type Signal } from "@preact/signals";
import type { RegionIncentive } from "./api/client.ts";

export class RegionSignals {
  private readonly byId = new Map<string, Signal<RegionIncentive>>();

  /** Takes a payload's regions, after keepUnchanged. */
  update(regions: readonly RegionIncentive[]): void {
    for (const region of regions) {
      const entry = this.byId.get(region.region);
      if (entry) entry.value = region;
      else this.byId.set(region.region, signal(region));
    }
  }

  /** The region's signal, once a payload has named it. */
  get(id: string): ReadonlySignal<RegionIncentive> | undefined {
    return this.byId.get(id);
  }
}
