/**
 * The webhook formats the hub sends. Their names are declared once, in
 * src/domain/alerts.ts (the stored column's type and the API's vocabulary
 * derive from it); here each name gets its format, in that order, and the
 * compiler refuses a list that misses a name, adds one, or changes the order.
 */
import { WEBHOOK_FORMATS } from "../../domain/alerts.ts";
import { discord } from "./discord.ts";
import type { FormatSpec } from "./format.ts";
import { json } from "./json.ts";
import { ntfy } from "./ntfy.ts";
import { FormatRegistry } from "./registry.ts";
import { slack } from "./slack.ts";

type OnePerName<Names extends readonly string[]> = { readonly [K in keyof Names]: FormatSpec<Names[K]> };

export const FORMATS = new FormatRegistry([json, discord, slack, ntfy] as const satisfies OnePerName<typeof WEBHOOK_FORMATS>);
