/**
 * The webhook formats the hub sends: listed here once, everything else (the
 * API's schema and reference, the stored column's type, validation and
 * sending) derives from this list.
 */
import { discord } from "./discord.ts";
import { json } from "./json.ts";
import { ntfy } from "./ntfy.ts";
import { FormatRegistry } from "./registry.ts";
import { slack } from "./slack.ts";

/** In the order the API lists them. */
export const FORMATS = new FormatRegistry([json, discord, slack, ntfy]);

export const WEBHOOK_FORMATS = FORMATS.names;
export type WebhookFormat = (typeof WEBHOOK_FORMATS)[number];
