/**
 * What each command shows, built from the hub's memory (the live payloads,
 * the cached forecast, the event schedule) in the reader's language. Pure
 * functions of a `View`, so the tests and the guide's pictures build the
 * same embeds the endpoint sends.
 */
import { ButtonStyle, ComponentType, MessageFlags, type APIActionRowComponent, type APIButtonComponent, type APIEmbed, type APIEmbedField } from "discord-api-types/v10";
import { PLATFORM_LABELS, type Catalogue, type Platform, type Region } from "../domain/catalogue.ts";
import type { ListedEvent } from "../domain/events.ts";
import type { ForecastContent } from "../domain/forecast.ts";
import type { IncentivesContent, RegionIncentive } from "../domain/incentives.ts";
import type { PatternCell } from "../domain/patterns.ts";
import { headlineRole, totalMultiplier } from "../web/board-model.ts";
import type { Role } from "./commands.ts";
import { bonusText, discordTime, number, plain, regionLabel, say, word } from "./words.ts";

const COLORS = { killer: 0xd13b3b, survivor: 0x3b82d1, none: 0x868e96, event: 0x9b59b6 } as const;
/** Lines of the whole-platform answer; the rest are counted and left to the board. */
export const LIST_LINES = 10;
/** Events of each kind listed by /events. */
export const EVENT_LINES = 8;
/** Characters of a field's value (Discord's limit is 1024) given to listed lines, the rest kept for the count of those left out. */
const FIELD_ROOM = 900;
/** Best hours listed per role by /when. */
export const BEST_HOURS = 3;

/** What the answers read; the endpoint gives the hub's own, the tests a hub of their own. */
export interface View {
  readonly catalogue: Catalogue;
  readonly origin: string;
  readonly now: number;
  incentives(platform: Platform): IncentivesContent;
  forecast(platform: Platform, region: string): ForecastContent;
  patterns(platform: Platform, region: string): readonly PatternCell[];
  events(): readonly ListedEvent[];
}

/** A message as an interaction response's `data`. */
export interface MessageData {
  readonly content?: string;
  readonly embeds?: APIEmbed[];
  readonly components?: APIActionRowComponent<APIButtonComponent>[];
  readonly flags?: MessageFlags;
  readonly allowed_mentions: { readonly parse: [] };
}

const NO_MENTIONS = { parse: [] } as { parse: [] };
/** An empty inline field, Discord's way to end a row of inline fields early. */
const SPACER: APIEmbedField = { name: "\u200b", value: "\u200b", inline: true };

/** A sentence only the reader sees. */
export function ephemeral(text: string): MessageData {
  return { content: text, flags: MessageFlags.Ephemeral, allowed_mentions: NO_MENTIONS };
}

/** The Refresh button's id: what to show again, so a button pressed days later still knows. */
export function refreshId(platform: Platform, region: string | null): string {
  return `refresh:${platform}:${region ?? "*"}`;
}

function refreshRow(language: string, platform: Platform, region: string | null): APIActionRowComponent<APIButtonComponent> {
  return {
    type: ComponentType.ActionRow,
    components: [{ type: ComponentType.Button, style: ButtonStyle.Secondary, label: word(language, "discord.refresh").slice(0, 80), custom_id: refreshId(platform, region) }],
  };
}

const platformName = (platform: Platform): string => PLATFORM_LABELS[platform];

function regionTitle(region: Region, language: string): string {
  const name = regionLabel(region, language);
  return region.flag === "" ? name : `${region.flag} ${name}`;
}

function headline(language: string, row: RegionIncentive): string {
  if (!row.isReal) return say(language, "card.noReading");
  const role = headlineRole(row);
  if (role === null) return say(language, "card.noBonus");
  return plain(`${word(language, `role.${role}`)} ${bonusText(language, row[role])}`);
}

/** `/bonus platform region`: one region's bonus now, with its page. */
export function regionBonus(view: View, language: string, platform: Platform, region: Region): MessageData {
  const content = view.incentives(platform);
  const row = content.regions.find((r) => r.region === region.id);
  const role = row ? headlineRole(row) : null;
  const fields: APIEmbedField[] = [];
  const lines: string[] = [];
  if (!row) lines.push(say(language, "card.noReading"));
  else {
    lines.push(`**${headline(language, row)}**`);
    if (row.isReal && row.stale) lines.push(say(language, "discord.bonus.stale"));
    if (row.isReal) {
      for (const r of ["survivor", "killer"] as const) fields.push({ name: say(language, "card.bonusFor", { role: word(language, `role.${r}`) }), value: bonusText(language, row[r]), inline: true });
      const event = content.activeEvent;
      if (event && role !== null) {
        const total = number(language, totalMultiplier(row[role], event.multiplier), 2);
        fields.push({ name: say(language, "discord.bonus.withEvent"), value: plain(`×${total} (${event.label} ×${number(language, event.multiplier, 2)})`), inline: true });
      }
      if (row.lastUpdated !== null) fields.push({ name: say(language, "discord.bonus.updated"), value: discordTime(Date.parse(row.lastUpdated), "R"), inline: true });
    }
  }
  const embed: APIEmbed = {
    title: plain(`${regionTitle(region, language)}, ${platformName(platform)}`),
    url: `${view.origin}/${platform}/${encodeURIComponent(region.id)}`,
    description: lines.join("\n"),
    color: role === null || row?.stale ? COLORS.none : COLORS[role],
    fields,
    ...(row?.lastUpdated ? { timestamp: row.lastUpdated } : {}),
  };
  return { embeds: [embed], components: [refreshRow(language, platform, region.id)], allowed_mentions: NO_MENTIONS };
}

/** `/bonus [platform]`: the platform's regions with a bonus now, best first. */
export function platformBonus(view: View, language: string, platform: Platform): MessageData {
  const content = view.incentives(platform);
  const ranked = content.regions
    .filter((r) => r.isReal && !r.stale && headlineRole(r) !== null)
    .map((r) => ({ row: r, best: Math.max(r.survivor, r.killer) }))
    .sort((a, b) => b.best - a.best || view.catalogue.order(a.row.region) - view.catalogue.order(b.row.region));
  const lines = ranked.slice(0, LIST_LINES).map(({ row }) => {
    const region = view.catalogue.region(row.region);
    const name = region ? regionTitle(region, language) : row.displayName;
    return `${plain(name)}: **${headline(language, row)}**`;
  });
  if (ranked.length === 0) lines.push(say(language, "discord.bonus.listEmpty", { platform: platformName(platform) }));
  if (ranked.length > LIST_LINES) lines.push(say(language, "discord.bonus.more", { count: number(language, ranked.length - LIST_LINES, 0) }));
  const event = content.activeEvent;
  const fields: APIEmbedField[] = event
    ? [{ name: say(language, "discord.events.inForce"), value: `${say(language, "event.active", { label: event.label, multiplier: number(language, event.multiplier, 2) })} · ${discordTime(Date.parse(event.endsAt), "R")}` }]
    : [];
  const top = ranked[0] ? headlineRole(ranked[0].row) : null;
  const embed: APIEmbed = {
    title: say(language, "discord.bonus.listTitle", { platform: platformName(platform) }),
    url: `${view.origin}/${platform}`,
    description: lines.join("\n"),
    color: top === null ? COLORS.none : COLORS[top],
    fields,
    ...(content.updatedAt ? { timestamp: content.updatedAt } : {}),
  };
  return { embeds: [embed], components: [refreshRow(language, platform, null)], allowed_mentions: NO_MENTIONS };
}

const zoneFormats = new Map<string, Intl.DateTimeFormat>();

function zoneFormat(language: string, timeZone: string, withDay: boolean): Intl.DateTimeFormat {
  const key = `${language}|${timeZone}|${withDay}`;
  let format = zoneFormats.get(key);
  if (!format) {
    format = new Intl.DateTimeFormat(language, { ...(withDay ? { weekday: "short" } : {}), hour: "numeric", minute: "2-digit", timeZone });
    zoneFormats.set(key, format);
  }
  return format;
}

const HOUR_MS = 3_600_000;
const WEEK_MS = 7 * 24 * HOUR_MS;
/** A Monday 00:00 UTC, to place a (weekday, hour) cell at an instant. */
const MONDAY = Date.UTC(2026, 0, 5);

/** The instant of a UTC (weekday, hour) cell in the week around `now`, so the region's offset is today's (summer time included). */
function cellInstant(cell: PatternCell, now: number): number {
  const weeks = Math.floor((now - MONDAY) / WEEK_MS);
  return MONDAY + weeks * WEEK_MS + (cell.day * 24 + cell.hour) * HOUR_MS;
}

function bestCells(cells: readonly PatternCell[], role: Role): PatternCell[] {
  const share = (c: PatternCell) => (role === "survivor" ? c.survivorShare : c.killerShare);
  const median = (c: PatternCell) => (role === "survivor" ? c.survivorMedian : c.killerMedian) ?? 0;
  return cells
    .filter((c) => share(c) > 0 && median(c) > 0)
    .sort((a, b) => share(b) * median(b) - share(a) * median(a))
    .slice(0, BEST_HOURS);
}

/** `/when region [role]`: the best hours in the region's time zone, and the forecast's next expected bonus. */
export function whenToPlay(view: View, language: string, platform: Platform, region: Region, only: Role | null): MessageData {
  const cells = view.patterns(platform, region.id);
  const forecast = view.forecast(platform, region.id);
  const roles: readonly Role[] = only === null ? ["survivor", "killer"] : [only];
  const best: APIEmbedField[] = [];
  const next: APIEmbedField[] = [];
  for (const role of roles) {
    const roleName = word(language, `role.${role}`);
    const cellsOfRole = bestCells(cells, role);
    const value =
      cellsOfRole.length === 0
        ? say(language, "discord.when.none")
        : cellsOfRole
            .map((c) => {
              const share = role === "survivor" ? c.survivorShare : c.killerShare;
              const median = (role === "survivor" ? c.survivorMedian : c.killerMedian) ?? 0;
              return say(language, "discord.when.hour", {
                hour: zoneFormat(language, region.tz, true).format(cellInstant(c, view.now)),
                bonus: bonusText(language, median),
                share: `${number(language, Math.round(share * 100), 0)} %`,
              });
            })
            .join("\n");
    best.push({ name: say(language, "discord.when.best", { role: roleName, zone: region.tz }), value, inline: true });
    const expected = forecast.points.find((p) => p.t > view.now && p[role] > 0);
    const when = expected
      ? `${say(language, "discord.when.nextValue", { bonus: bonusText(language, expected[role]), time: zoneFormat(language, region.tz, false).format(expected.t) })} (${discordTime(expected.t, "R")})`
      : say(language, "discord.when.noNext");
    next.push({ name: say(language, "discord.when.next", { role: roleName }), value: when, inline: true });
  }
  // Discord sets three inline fields to a row: an empty third keeps each row to the roles side by side.
  const fields = roles.length > 1 ? [...best, SPACER, ...next, SPACER] : [...best, ...next];
  const embed: APIEmbed = {
    title: say(language, "discord.when.title", { region: `${regionTitle(region, language)}, ${platformName(platform)}` }),
    url: `${view.origin}/${platform}/${encodeURIComponent(region.id)}`,
    color: only === null ? COLORS.none : COLORS[only],
    fields,
  };
  return { embeds: [embed], allowed_mentions: NO_MENTIONS };
}

function eventLine(language: string, event: ListedEvent, inForce: boolean): string {
  const what = say(language, "event.active", { label: event.label, multiplier: number(language, event.multiplier, 2) });
  const where = event.platforms === null ? "" : plain(` (${event.platforms.map((p) => (p in PLATFORM_LABELS ? PLATFORM_LABELS[p as Platform] : p)).join(", ")})`);
  const starts = Date.parse(event.startsAt);
  const ends = Date.parse(event.endsAt);
  const when = inForce ? `→ ${discordTime(ends, "f")} (${discordTime(ends, "R")})` : `${discordTime(starts, "f")} → ${discordTime(ends, "f")}`;
  return `${what}${where} · ${when}`;
}

/** `/events`: the events in force, then the coming ones. */
export function eventsAnswer(view: View, language: string): MessageData {
  const events = view.events();
  const inForce = events.filter((e) => Date.parse(e.startsAt) <= view.now);
  const coming = events.filter((e) => Date.parse(e.startsAt) > view.now);
  const fields: APIEmbedField[] = [];
  const list = (items: readonly ListedEvent[], now: boolean) => {
    const lines: string[] = [];
    let length = 0;
    for (const event of items.slice(0, EVENT_LINES)) {
      const line = eventLine(language, event, now);
      // A field's value holds 1024 characters; room is kept for the line that counts the rest.
      if (length + line.length + 1 > FIELD_ROOM) break;
      lines.push(line);
      length += line.length + 1;
    }
    if (items.length > lines.length) lines.push(say(language, "discord.bonus.more", { count: number(language, items.length - lines.length, 0) }));
    return lines.join("\n");
  };
  if (inForce.length > 0) fields.push({ name: say(language, "discord.events.inForce"), value: list(inForce, true) });
  if (coming.length > 0) fields.push({ name: say(language, "discord.events.coming"), value: list(coming, false) });
  const embed: APIEmbed = {
    title: say(language, "discord.events.title"),
    url: view.origin,
    color: COLORS.event,
    ...(events.length === 0 ? { description: say(language, "discord.events.none") } : {}),
    fields,
  };
  return { embeds: [embed], allowed_mentions: NO_MENTIONS };
}
