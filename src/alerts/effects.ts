/**
 * One judgement, two ways out: a reading's webhook conditions and its push
 * rules are judged together and written in the reading's own transaction.
 */
import type { Platform } from "../domain/catalogue.ts";
import type { PreparedEffects, ReadingEffects } from "../live/ingest.ts";

interface Preparer {
  prepare(platform: Platform, region: string, reading: { survivor: number; killer: number; measuredAt: number }, now: number): PreparedEffects | null;
}

export function bothEffects(alerts: Preparer & { rolledBack(): void }, push: Preparer): ReadingEffects {
  return {
    prepare(platform, region, reading, now) {
      const first = alerts.prepare(platform, region, reading, now);
      const second = push.prepare(platform, region, reading, now);
      if (first === null || second === null) return first ?? second;
      return {
        write: () => {
          first.write();
          second.write();
        },
        committed: () => {
          first.committed();
          second.committed();
        },
      };
    },
    rolledBack: () => alerts.rolledBack(),
  };
}
