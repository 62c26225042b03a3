/**
 * Bloodpoint events: which one is in force for a platform right now. Admins
 * define events; agents also report the event they see. The highest
 * multiplier wins, and an admin-defined event wins a tie.
 */
import type { ReportedEvent } from "./readings.ts";

export interface AdminEvent extends ReportedEvent {
  readonly id: number;
  /** Null means every platform. */
  readonly platforms: readonly string[] | null;
}

export interface PublicEvent {
  readonly key: string;
  readonly label: string;
  readonly multiplier: number;
  readonly startsAt: string;
  readonly endsAt: string;
}

function inForce(event: ReportedEvent, now: number): boolean {
  return event.startsAt <= now && now < event.endsAt;
}

export function selectActiveEvent(platform: string, now: number, admin: readonly AdminEvent[], reported: readonly ReportedEvent[]): PublicEvent | null {
  const candidates = [
    ...admin.filter((e) => (e.platforms === null || e.platforms.includes(platform)) && inForce(e, now)).map((event) => ({ event, admin: true })),
    ...reported.filter((e) => inForce(e, now)).map((event) => ({ event, admin: false })),
  ];
  candidates.sort(
    (a, b) =>
      b.event.multiplier - a.event.multiplier ||
      Number(b.admin) - Number(a.admin) ||
      a.event.startsAt - b.event.startsAt ||
      a.event.key.localeCompare(b.event.key),
  );
  const winner = candidates[0]?.event;
  if (!winner) return null;
  return {
    key: winner.key,
    label: winner.label,
    multiplier: winner.multiplier,
    startsAt: new Date(winner.startsAt).toISOString(),
    endsAt: new Date(winner.endsAt).toISOString(),
  };
}

/** The next instant after `now` at which any of these events starts or ends, or null. */
export function nextEventBoundary(now: number, events: readonly ReportedEvent[]): number | null {
  let next: number | null = null;
  for (const event of events) {
    for (const at of [event.startsAt, event.endsAt]) {
      if (at > now && (next === null || at < next)) next = at;
    }
  }
  return next;
}
