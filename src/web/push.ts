/**
 * Push to a closed page (SPEC §23), from the browser's side: the service
 * worker, registered on every page; whether this browser can take push, and
 * if not, why in words; and this device's push rules, kept with the
 * subscription's id and manage token in the browser's storage and mirrored
 * to the hub, which sends a message when one becomes true.
 */
import { signal } from "@preact/signals";
import type { components } from "./api/schema";
import { api } from "./api/client.ts";
import { language } from "./i18n/index.ts";

export type PushRule = components["schemas"]["PushSubscriptionRequest"]["rules"][number];

interface Stored {
  readonly id: string;
  readonly manageToken: string;
  readonly rules: readonly PushRule[];
}

/** ok, or why push cannot be offered here: each has its own sentence. */
export type PushSupport = "ok" | "unsupported" | "ios" | "denied";

const STORAGE_KEY = "hub.push";
export const MAX_PUSH_RULES = 10;

/** True while the board shows a payload the service worker kept, because the network failed. */
export const servedOffline = signal(false);

export function registerServiceWorker(): void {
  if (!("serviceWorker" in navigator)) return;
  navigator.serviceWorker.addEventListener("message", (event: MessageEvent<unknown>) => {
    const data = event.data;
    if (typeof data === "object" && data !== null && "hubOffline" in data && typeof data.hubOffline === "boolean") servedOffline.value = data.hubOffline;
  });
  navigator.serviceWorker.startMessages();
  // A browser that refuses (a private window, storage blocked) simply has no offline board and no push.
  navigator.serviceWorker.register("/sw.js", { scope: "/" }).catch(() => undefined);
}

function isAppleMobile(): boolean {
  const platform = (navigator as Navigator & { platform?: string }).platform ?? "";
  return /iPad|iPhone|iPod/.test(navigator.userAgent) || (platform === "MacIntel" && navigator.maxTouchPoints > 1);
}

function installed(): boolean {
  return (navigator as Navigator & { standalone?: boolean }).standalone === true || window.matchMedia("(display-mode: standalone)").matches;
}

export function pushSupport(): PushSupport {
  // On iOS and iPadOS only a Home Screen app may receive push: Safari's tab has no PushManager at all.
  if (isAppleMobile() && !installed()) return "ios";
  if (!("serviceWorker" in navigator) || !("PushManager" in window) || !("Notification" in window)) return "unsupported";
  if (Notification.permission === "denied") return "denied";
  return "ok";
}

function load(): Stored | null {
  try {
    const value = JSON.parse(localStorage.getItem(STORAGE_KEY) ?? "null") as Stored | null;
    return value && typeof value.id === "string" && typeof value.manageToken === "string" && Array.isArray(value.rules) ? value : null;
  } catch {
    return null;
  }
}

export const pushState = signal<Stored | null>(load());

function save(next: Stored | null): void {
  pushState.value = next;
  try {
    if (next === null) localStorage.removeItem(STORAGE_KEY);
    else localStorage.setItem(STORAGE_KEY, JSON.stringify(next));
  } catch {
    // Without storage the rules last for this page; the hub still has them.
  }
}

export const sameRule = (a: PushRule, b: PushRule): boolean => a.platform === b.platform && a.region === b.region && a.role === b.role;

/** A refusal from the hub, with its sentence. */
export class PushError extends Error {
  override readonly name = "PushError";
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

async function call<T>(method: string, path: string, body: unknown, token: string | null): Promise<T | null> {
  const headers: Record<string, string> = { accept: "application/json" };
  if (body !== undefined) headers["content-type"] = "application/json";
  if (token !== null) headers.authorization = `Bearer ${token}`;
  const response = await fetch(path, { method, headers, credentials: "same-origin", body: body === undefined ? undefined : JSON.stringify(body) });
  if (response.status === 204) return null;
  const text = await response.text();
  const parsed = (text === "" ? null : JSON.parse(text)) as (T & { detail?: string }) | null;
  if (!response.ok) throw new PushError(response.status, parsed?.detail ?? `HTTP ${response.status}`);
  return parsed;
}

/**
 * The hub's push key, or null when the hub does not offer push (then the board does not either). The site's settings
 * say first whether it can: push on, and a contact for the push services (CONTACT_EMAIL, or an https origin), so a hub
 * without push is not asked for a key it does not have.
 */
export async function pushKey(): Promise<string | null> {
  try {
    const meta = await api.meta();
    if (!meta.pushEnabled || (meta.contactEmail === null && window.location.protocol !== "https:")) return null;
    return (await call<{ publicKey: string }>("GET", "/api/v1/push/key", undefined, null))?.publicKey ?? null;
  } catch {
    return null;
  }
}

function bytesOf(base64url: string): Uint8Array<ArrayBuffer> {
  const text = atob(base64url.replace(/-/g, "+").replace(/_/g, "/"));
  const bytes = new Uint8Array(new ArrayBuffer(text.length));
  for (let i = 0; i < text.length; i++) bytes[i] = text.charCodeAt(i);
  return bytes;
}

async function deviceSubscription(key: string): Promise<PushSubscriptionJSON> {
  const registration = await navigator.serviceWorker.ready;
  const existing = await registration.pushManager.getSubscription();
  const subscription = existing ?? (await registration.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: bytesOf(key) }));
  return subscription.toJSON();
}

/** Sends this device's rules to the hub: a change of the stored subscription, or a new one when the hub no longer knows it. */
async function publish(rules: readonly PushRule[], key: string): Promise<void> {
  const subscription = await deviceSubscription(key);
  const body = { subscription: { endpoint: subscription.endpoint, keys: subscription.keys }, lang: language.value, rules, events: false };
  const stored = pushState.value;
  if (stored !== null) {
    try {
      await call("PUT", `/api/v1/push/subscriptions/${stored.id}`, body, stored.manageToken);
      save({ ...stored, rules });
      return;
    } catch (error) {
      if (!(error instanceof PushError && error.status === 404)) throw error;
    }
  }
  const created = await call<{ id: string; manageToken: string }>("POST", "/api/v1/push/subscriptions", body, null);
  if (created === null) throw new PushError(500, "no answer");
  save({ id: created.id, manageToken: created.manageToken, rules });
}

/** Adds a rule (replacing one for the same region and role). Resolves to the permission the browser gave. */
export async function addPushRule(rule: PushRule, key: string): Promise<NotificationPermission> {
  const permission = await Notification.requestPermission();
  if (permission !== "granted") return permission;
  const rules = [...(pushState.value?.rules ?? []).filter((r) => !sameRule(r, rule)), rule].slice(-MAX_PUSH_RULES);
  await publish(rules, key);
  return permission;
}

/** Removes a rule; the last one takes the subscription with it, on the hub and in the browser. */
export async function removePushRule(rule: PushRule, key: string | null): Promise<void> {
  const stored = pushState.value;
  if (stored === null) return;
  const rules = stored.rules.filter((r) => !sameRule(r, rule));
  if (rules.length > 0 && key !== null) {
    await publish(rules, key);
    return;
  }
  try {
    await call("DELETE", `/api/v1/push/subscriptions/${stored.id}`, undefined, stored.manageToken);
  } catch (error) {
    if (!(error instanceof PushError && error.status === 404)) throw error;
  }
  save(null);
  const registration = await navigator.serviceWorker?.getRegistration();
  await (await registration?.pushManager.getSubscription())?.unsubscribe();
}
