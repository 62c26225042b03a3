import { openDatabase } from "../db/open.ts";
import { buildOpenApiDocument } from "../http/openapi.ts";
import { createHub } from "../hub.ts";
import { createLogger } from "../log.ts";
import type { Command } from "./command.ts";

export const openapi: Command = {
  name: "openapi",
  usage: "hub openapi [--yaml]",
  summary: "Print the OpenAPI 3.1 description (JSON, or YAML with --yaml)",
  flags: [{ name: "yaml", takesValue: false, help: "Print YAML instead of JSON" }],
  words: 0,
  settings: ["origin"],
  async run({ config, args, out }) {
    const { app, ctx } = createHub(config, { db: openDatabase(":memory:"), log: createLogger("error") });
    const doc = buildOpenApiDocument(app, config.origin);
    out(args.command.get("yaml") === "true" ? Bun.YAML.stringify(doc, null, 2) : JSON.stringify(doc, null, 2));
    ctx.db.sqlite.close();
    return 0;
  },
};
