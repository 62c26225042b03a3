import { restoreBackup, RestoreError } from "../backup/restore.ts";
import { s3Credentials } from "../backup/settings.ts";
import { BackupTargetError } from "../backup/target.ts";
import { CommandError, type Command } from "./command.ts";

export const restore: Command = {
  name: "restore",
  usage: "hub restore SOURCE [--db PATH]",
  summary: "Make a backup (a file or s3://bucket/prefix/name) the database again, checked first; the old file is kept as <db>.before-restore",
  flags: [],
  words: 1,
  settings: ["db", "backupEncryptionKey", "backupS3Endpoint", "backupS3Region", "backupS3AccessKeyId", "backupS3SecretAccessKey", "secretKey"],
  async run({ config, args, out }) {
    const source = args.positionals[0];
    if (!source) throw new CommandError("restore needs a source: hub restore FILE or hub restore s3://bucket/prefix/hub-….db.zst");
    if (config.db === ":memory:") throw new CommandError("restore needs a database file: give --db PATH");
    try {
      const result = await restoreBackup({ source, dbPath: config.db, passphrase: config.backupEncryptionKey, s3: s3Credentials(config) });
      out(`restored ${config.db} from ${source}: taken ${new Date(result.createdAt).toISOString()}, schema ${result.schemaVersion}, ${result.databaseBytes} bytes`);
      out(`rows: ${Object.entries(result.rows).map(([table, n]) => `${table} ${n}`).join(", ")}`);
      if (result.keptAs) out(`the database it replaced is kept as ${result.keptAs}`);
      if (config.secretKey === null) out("second-factor secrets and webhook secrets open only with the hub's key: put the old hub.key beside the database (or set SECRET_KEY) before starting the hub");
      return 0;
    } catch (error) {
      if (error instanceof RestoreError || error instanceof BackupTargetError) throw new CommandError(error.message);
      throw error;
    }
  },
};
