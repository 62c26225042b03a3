import { BACKUP_TARGET_ALLOWED } from "../config/backup-target.ts";
import { targetFrom } from "../backup/settings.ts";
import type { StoredBackup } from "../backup/target.ts";
import { CommandError, type Command } from "./command.ts";

export const backups: Command = {
  name: "backups",
  usage: "hub backups list [--target TARGET]",
  summary: "List the backups at BACKUP_TARGET (or --target): name, time, schema and size",
  flags: [{ name: "target", takesValue: true, arg: "TARGET", help: "The folder or s3://bucket/prefix to list (default: BACKUP_TARGET)" }],
  words: 1,
  settings: ["backupTarget", "backupS3Endpoint", "backupS3Region", "backupS3AccessKeyId", "backupS3SecretAccessKey"],
  async run({ config, args, out }) {
    if (args.positionals[0] !== "list") throw new CommandError('use "hub backups list [--target TARGET]"');
    const given = args.command.get("target");
    const chosen = targetFrom(config, given);
    if (!chosen) throw new CommandError(given === undefined ? "set BACKUP_TARGET or give --target" : `"${given}" is not a backup target: expected ${BACKUP_TARGET_ALLOWED}`);
    let list: StoredBackup[];
    try {
      list = await chosen.target.list();
    } catch (error) {
      throw new CommandError(error instanceof Error ? error.message : String(error));
    }
    if (list.length === 0) {
      out(`no backups at ${chosen.target.description}`);
      return 0;
    }
    const rows = list.map((b) => [b.name, new Date(b.createdAt).toISOString(), String(b.schemaVersion), String(b.size), b.encrypted ? "yes" : "no"]);
    const header = ["NAME", "TAKEN", "SCHEMA", "BYTES", "ENCRYPTED"];
    const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
    for (const row of [header, ...rows]) out(row.map((cell, i) => cell.padEnd(widths[i] ?? 0)).join("  ").trimEnd());
    return 0;
  },
};
