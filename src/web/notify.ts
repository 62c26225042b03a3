/**
 * Browser alerts (SPEC §18), without an account: a viewer asks to be told
 * when a region's bonus for a role reaches a level; the open page raises a
 * system notification from the stream when that becomes true, once, and again
 * only after it stopped being true. The rules live in the browser's storage.
 */
import { signal } from "@preact/signals";
import type { IncentivesPayload } from "./api/client.ts";
import type { AlertRole } from "./api/vocabulary.ts";

export type Role = AlertRole;

export interface AlertRule {
  readonly platform: string;
  readonly region: string;
  readonly role: Role;
  /** Bonus percent at or above which the viewer wants to know. */
  readonly min: number;
}

const STORAGE_KEY = "hub.alerts";

function load(): AlertRule[] {
  try {
    const parsed = JSON.parse(localStorage.getItem(STORAGE_KEY) ?? "[]") as unknown;
    return Array.isArray(parsed) ? parsed.filter(isRule) : [];
  } catch {
    return [];
  }
}

function isRule(value: unknown): value is AlertRule {
  if (value === null || typeof value !== "object") return false;
  const rule = value as Record<string, unknown>;
  return typeof rule.platform === "string" && typeof rule.region === "string" && (rule.role === "survivor" || rule.role === "killer") && typeof rule.min === "number";
}

export const rules = signal<AlertRule[]>(load());

function save(next: AlertRule[]): void {
  rules.value = next;
  try {
    localStorage.setItem(STORAGE_KEY, JSON.stringify(next));
  } catch {
    // Without storage the rules last for this page.
  }
}

export function keyOf(rule: AlertRule): string {
  return `${rule.platform}|${rule.region}|${rule.role}`;
}

/** Adds a rule (replacing one for the same region and role); asks for permission first. Resolves to the permission. */
export async function addRule(rule: AlertRule): Promise<NotificationPermission> {
  const permission = "Notification" in window ? await Notification.requestPermission() : "denied";
  if (permission === "granted") save([...rules.value.filter((r) => keyOf(r) !== keyOf(rule)), rule]);
  return permission;
}

export function removeRule(rule: AlertRule): void {
  save(rules.value.filter((r) => keyOf(r) !== keyOf(rule)));
  holding.delete(keyOf(rule));
}

/** Which rules held at the last payload: a rule fires only when it goes from not holding to holding. */
const holding = new Set<string>();

export interface Crossing {
  readonly rule: AlertRule;
  readonly displayName: string;
  readonly bonus: number;
}

/** The rules that became true with this payload (and remembers which hold now). Pure but for that memory, so it is tested alone. */
export function crossings(payload: IncentivesPayload, active: readonly AlertRule[]): Crossing[] {
  const fired: Crossing[] = [];
  for (const rule of active) {
    if (rule.platform !== payload.platform) continue;
    const region = payload.regions.find((r) => r.region === rule.region);
    const bonus = region && region.isReal && !region.stale ? region[rule.role] : 0;
    const key = keyOf(rule);
    const holds = bonus > 0 && bonus >= rule.min;
    if (holds && !holding.has(key) && region) fired.push({ rule, displayName: region.displayName, bonus });
    if (holds) holding.add(key);
    else holding.delete(key);
  }
  return fired;
}

export interface NotificationText {
  readonly title: string;
  readonly body: string;
}

/** Raises the system notifications for what just became true; clicking one opens the region's page. */
export function notify(payload: IncentivesPayload, text: (crossing: Crossing) => NotificationText, open: (path: string) => void): void {
  // Notification.permission asks the browser process, a synchronous round trip (1.5 ms a stream message measured in
  // headless Chromium, a third of the whole message): it is read only when a rule could fire on this payload.
  const active = rules.value.filter((rule) => rule.platform === payload.platform);
  if (active.length === 0 || !("Notification" in window) || Notification.permission !== "granted") return;
  for (const crossing of crossings(payload, active)) {
    const { title, body } = text(crossing);
    const notification = new Notification(title, { body, tag: keyOf(crossing.rule) });
    notification.onclick = () => {
      window.focus();
      open(`/${crossing.rule.platform}/${encodeURIComponent(crossing.rule.region)}`);
    };
  }
}
