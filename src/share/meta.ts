/** GET /meta's body, what a dashboard needs to know about this hub, and its schema: the board's first paint is rendered with it too (src/share/first-paint.tsx). */
import type { TSchema } from "@sinclair/typebox";
import { t } from "elysia";
import type { Config } from "../config/load.ts";
import type { OptionTable, Settings } from "../config/options.ts";
import { PLATFORMS } from "../domain/catalogue.ts";
import { platformSchema } from "../http/vocabularies.ts";
import type { AgentDirectory } from "../live/agents.ts";

export interface PublicSetting {
  readonly key: keyof Settings;
  /** Its field in /meta. */
  readonly field: string;
  readonly schema: TSchema;
}

/** The settings the table marks public, in the table's order, each with its field and schema (described by its help). */
export function publicSettings(table: OptionTable): PublicSetting[] {
  return (Object.keys(table) as (keyof Settings)[]).flatMap((key) => {
    const option = table[key];
    const mark = option.public;
    if (!mark) return [];
    if (option.secret) throw new Error(`The setting ${key} is a secret and cannot be public.`);
    const description = option.help;
    const schemas: Record<typeof mark.type, () => TSchema> = {
      boolean: () => t.Boolean({ description }),
      integer: () => t.Integer({ description }),
      string: () => t.String({ description }),
      "string or null": () => t.Nullable(t.String(), { description }),
    };
    return [{ key, field: mark.as ?? key, schema: schemas[mark.type]() }];
  });
}

function publicValues(config: Config, settings: readonly PublicSetting[]): Record<string, unknown> {
  return Object.fromEntries(settings.map((s) => [s.field, config[s.key]]));
}

function latencyHosts(config: Config) {
  return config.latencyProbes ? config.catalogue.regions.map((r) => ({ region: r.id, host: r.latencyHost })) : [];
}

/** The body of /meta. */
export function siteMeta(ctx: { readonly config: Config; readonly agents: AgentDirectory }, published: readonly PublicSetting[]) {
  return {
    platforms: PLATFORMS.filter((p) => ctx.agents.coveredRegions(p).size > 0),
    ...publicValues(ctx.config, published),
    latencyHosts: latencyHosts(ctx.config),
  };
}

/** SiteMeta: the platforms served, every public setting (the example shows this hub's own values) and the hosts to time. */
export function siteMetaSchema(config: Config, settings: readonly PublicSetting[]) {
  return t.Object(
    {
      platforms: t.Array(platformSchema(), { description: "Platforms with at least one enabled agent, in display order" }),
      ...Object.fromEntries(settings.map((s) => [s.field, s.schema])),
      latencyHosts: t.Array(
        t.Object({ region: t.String(), host: t.String({ description: "Host name, timed over HTTPS" }) }),
        {
          description:
            "Every catalogue region's host that the game's matchmaking times, for a client to find the viewer's closest region; empty when LATENCY_PROBES is off (the web app's CSP then allows none)",
        },
      ),
    },
    {
      title: "SiteMeta",
      examples: [{ platforms: ["Windows", "EGS"], ...publicValues(config, settings), latencyHosts: latencyHosts(config).slice(0, 1) }],
    },
  );
}
