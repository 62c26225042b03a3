/** `hub agent create` and `hub agent list`: agents from the command line, beside a running server. */
import { insertAgent, listAgents } from "../db/agents.ts";
import { migrate, openDatabase, type HubDb } from "../db/open.ts";
import { parseProvider, PROVIDERS } from "../domain/catalogue.ts";
import { newAgentToken, sha256Hex } from "../domain/tokens.ts";
import { sendToHub, writerFor } from "./control-client.ts";
import { CONTROL_ROUTES, type AgentList, type CreatedAgent, type CreateAgentRequest, type ListedAgent } from "../control/protocol.ts";
import { CommandError, type Command } from "./command.ts";

function readingStats(db: HubDb): Map<number, { readings: number; last: number | null }> {
  const rows = db.sqlite
    .query<{ agent_id: number; n: number; last: number | null }, []>("SELECT agent_id, COUNT(*) AS n, MAX(measured_at) AS last FROM readings WHERE agent_id IS NOT NULL GROUP BY agent_id")
    .all();
  return new Map(rows.map((r) => [r.agent_id, { readings: r.n, last: r.last }]));
}

function listFromFile(db: HubDb): ListedAgent[] {
  const stats = readingStats(db);
  return listAgents(db.orm).map((a) => ({ ...a, readings: stats.get(a.id)?.readings ?? 0, lastReadingAt: stats.get(a.id)?.last ?? null }));
}

function printList(agents: readonly ListedAgent[], out: (line: string) => void): void {
  const rows = agents.map((a) => [
    String(a.id),
    a.enabled ? "yes" : "no",
    a.platform,
    a.region,
    a.provider,
    a.source,
    a.label ?? "",
    String(a.readings),
    a.lastReadingAt ? new Date(a.lastReadingAt).toISOString() : "",
  ]);
  const header = ["ID", "ENABLED", "PLATFORM", "REGION", "PROVIDER", "SOURCE", "LABEL", "READINGS", "LAST READING"];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
  for (const row of [header, ...rows]) out(row.map((cell, i) => cell.padEnd(widths[i] ?? 0)).join("  ").trimEnd());
}

function printCreated(out: (line: string) => void, { agent, token }: CreatedAgent): void {
  out(`created agent ${agent.id}: ${agent.provider} on ${agent.platform}, ${agent.region}${agent.label ? ` (${agent.label})` : ""}`);
  out(`token (shown only now): ${token}`);
}

export const agent: Command = {
  name: "agent",
  usage: "hub agent create --region R --provider P [--label L] | hub agent list",
  summary: "Create an agent (prints its token once) or list agents",
  flags: [
    { name: "region", takesValue: true, arg: "R", help: "The region it reports on: a region id of the catalogue (GET /api/v1/meta lists them)" },
    { name: "provider", takesValue: true, arg: "P", help: `Where it reads the incentives: ${PROVIDERS.join(", ")} (the platform follows from it)` },
    { name: "label", takesValue: true, arg: "L", help: "A name for people, shown in the console" },
  ],
  words: 1,
  settings: ["db"],
  async run({ config, args, out }) {
    const action = args.positionals[0];
    if (action !== "create" && action !== "list") throw new CommandError('use "hub agent create --region R --provider P [--label L]" or "hub agent list"');
    const writer = writerFor(config.db);
    if (action === "list") {
      if (writer.kind === "hub") {
        printList((await sendToHub<AgentList>(writer, CONTROL_ROUTES.listAgents)).agents, out);
        return 0;
      }
      try {
        const db = openDatabase(config.db);
        try {
          migrate(db);
          printList(listFromFile(db), out);
          return 0;
        } finally {
          db.sqlite.close();
        }
      } finally {
        writer.release();
      }
    }
    try {
      const region = args.command.get("region");
      const providerText = args.command.get("provider");
      if (!region || !providerText) throw new CommandError("agent create needs --region and --provider");
      if (!config.catalogue.hasRegion(region)) throw new CommandError(`unknown region "${region}"; known: ${config.catalogue.regions.map((r) => r.id).join(", ")}`);
      const provider = parseProvider(providerText);
      if (!provider) throw new CommandError(`unknown provider "${providerText}"; use ${PROVIDERS.join(", ")}`);
      const label = args.command.get("label")?.trim() || null;
      if (label !== null && label.length > 120) throw new CommandError("--label is longer than 120 characters");
      if (writer.kind === "hub") {
        printCreated(out, await sendToHub<CreatedAgent>(writer, CONTROL_ROUTES.createAgent, { region, provider, label } satisfies CreateAgentRequest));
        return 0;
      }
      const db = openDatabase(config.db);
      try {
        migrate(db);
        const token = newAgentToken();
        const created = insertAgent(db.orm, { tokenHash: sha256Hex(token), provider, region, label, source: "manual" }, Date.now());
        printCreated(out, { agent: created, token });
        return 0;
      } finally {
        db.sqlite.close();
      }
    } finally {
      if (writer.kind === "file") writer.release();
    }
  },
};
