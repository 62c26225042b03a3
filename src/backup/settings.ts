/** The backup settings as the targets, runs and restores take them. */
import type { Config } from "../config/load.ts";
import { parseTargetSpec, type TargetSpec } from "../config/backup-target.ts";
import { openTarget, type BackupTarget, type S3Credentials } from "./target.ts";

export type BackupConfig = Pick<
  Config,
  "backupSchedule" | "backupTarget" | "backupKeep" | "backupS3Endpoint" | "backupS3Region" | "backupS3AccessKeyId" | "backupS3SecretAccessKey" | "backupEncryptionKey"
>;

export function s3Credentials(config: BackupConfig): S3Credentials {
  return { endpoint: config.backupS3Endpoint, region: config.backupS3Region, accessKeyId: config.backupS3AccessKeyId, secretAccessKey: config.backupS3SecretAccessKey };
}

/** The target a command names (`--to`, `--target`), else BACKUP_TARGET; null when there is neither. */
export function targetFrom(config: BackupConfig, given: string | undefined): { spec: TargetSpec; target: BackupTarget } | null {
  const spec = given === undefined ? config.backupTarget : parseTargetSpec(given);
  if (!spec) return null;
  return { spec, target: openTarget(spec, s3Credentials(config)) };
}
