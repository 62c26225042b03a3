/**
 * A message in words, for the formats that show people a notification
 * rather than hand over the data: every message kind is worded here once, and
 * each such format lays the words out its own way.
 */
import { PLATFORM_LABELS, isPlatform } from "../../domain/catalogue.ts";
import { EVENT_ALERT_LIMIT } from "../event-rate.ts";
import type { AlertMessage } from "../model.ts";

const COLORS = { killer: 0xd13b3b, survivor: 0x3b82d1, ok: 0x2f9e44, warn: 0xe8a317, event: 0x9b59b6, test: 0x868e96 } as const;

export interface Field {
  readonly name: string;
  readonly value: string;
}

export interface Summary {
  readonly title: string;
  readonly text: string;
  readonly url: string | null;
  readonly color: number;
  readonly fields: readonly Field[];
  readonly timestamp: string;
  /** A notification's urgency (1 min … 5 max, as ntfy counts): a bonus is what people asked to be woken for. */
  readonly priority: 2 | 3 | 4;
  /** Short tags; the first ones that name an emoji may be shown as one. */
  readonly tags: readonly string[];
}

const platformLabel = (platform: string): string => (isPlatform(platform) ? PLATFORM_LABELS[platform] : platform);
const percent = (value: number): string => `+${value} %`;

export function summarize(message: AlertMessage): Summary {
  switch (message.type) {
    case "bonus.reached": {
      const d = message.data;
      return {
        title: `${percent(d.bonus)} ${d.role} bonus: ${d.displayName}`,
        text: `${d.role === "killer" ? "Killers" : "Survivors"} get ${percent(d.bonus)} bloodpoints in ${d.displayName} on ${platformLabel(d.platform)}.`,
        url: d.url,
        color: COLORS[d.role],
        fields: [
          { name: "Platform", value: platformLabel(d.platform) },
          { name: "Region", value: `${d.displayName} (${d.region})` },
          { name: "Survivor", value: percent(d.survivor) },
          { name: "Killer", value: percent(d.killer) },
        ],
        timestamp: d.measuredAt,
        priority: 4,
        tags: ["moneybag", d.role],
      };
    }
    case "status.changed": {
      const d = message.data;
      return {
        title: `${platformLabel(d.platform)}: ${d.status} (was ${d.previousStatus})`,
        text: d.statusReason === null ? `The ${platformLabel(d.platform)} board is ${d.status}.` : `The ${platformLabel(d.platform)} board is ${d.status}: ${d.statusReason}.`,
        url: d.url,
        color: d.status === "ok" ? COLORS.ok : COLORS.warn,
        fields: [
          { name: "Platform", value: platformLabel(d.platform) },
          { name: "Status", value: d.status },
          { name: "Before", value: d.previousStatus },
        ],
        timestamp: message.timestamp,
        priority: 3,
        tags: [d.status === "ok" ? "white_check_mark" : "warning", "status"],
      };
    }
    case "event.started":
    case "event.ended": {
      const d = message.data;
      const started = message.type === "event.started";
      const heldBack = d.heldBack
        ? `${d.heldBack.count} more event ${d.heldBack.count === 1 ? "change was" : "changes were"} held back since ${d.heldBack.since} (at most ${EVENT_ALERT_LIMIT.count} event alerts an hour).`
        : null;
      const text = started ? `${d.label} (×${d.multiplier} bloodpoints) runs until ${d.endsAt}.` : `${d.label} (×${d.multiplier} bloodpoints) has ended.`;
      return {
        title: `${started ? "Event started" : "Event ended"}: ${d.label} ×${d.multiplier}`,
        text: heldBack === null ? text : `${text} ${heldBack}`,
        url: d.url,
        color: COLORS.event,
        fields: [
          { name: "Platforms", value: d.platforms.map(platformLabel).join(", ") },
          { name: "Multiplier", value: `×${d.multiplier}` },
          { name: "Starts", value: d.startsAt },
          { name: "Ends", value: d.endsAt },
          ...(heldBack === null ? [] : [{ name: "Held back", value: heldBack }]),
        ],
        timestamp: message.timestamp,
        priority: 3,
        tags: [started ? "tada" : "hourglass", "event"],
      };
    }
    case "backup.failed": {
      const d = message.data;
      return {
        title: `Backups are failing (${d.failures} runs in a row)`,
        text: `Backups to ${d.target} failed: ${d.error}. Older backups were kept.`,
        url: null,
        color: COLORS.warn,
        fields: [
          { name: "Target", value: d.target },
          { name: "Failed runs", value: String(d.failures) },
          { name: "Last success", value: d.lastSuccessAt ?? "never" },
        ],
        timestamp: message.timestamp,
        priority: 4,
        tags: ["floppy_disk", "backup"],
      };
    }
    case "test":
      return {
        title: "Test delivery",
        text: message.data.message,
        url: null,
        color: COLORS.test,
        fields: [{ name: "Webhook", value: String(message.data.webhookId) }],
        timestamp: message.timestamp,
        priority: 2,
        tags: ["test_tube", "test"],
      };
  }
}
