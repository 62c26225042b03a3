/** Where backups go (SPEC §25): a folder, or `s3://bucket/prefix` on S3-compatible storage. */

export type TargetSpec = { readonly kind: "folder"; readonly path: string } | { readonly kind: "s3"; readonly bucket: string; readonly prefix: string };

export const BACKUP_TARGET_ALLOWED = "a folder path, or s3://bucket/prefix";

/** S3's rules for bucket names: 3 to 63 lower-case letters, digits, dots and hyphens. */
const BUCKET = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;

export function parseTargetSpec(text: string): TargetSpec | null {
  const raw = text.trim();
  if (raw === "") return null;
  if (/^s3:\/\//i.test(raw)) {
    const rest = raw.slice("s3://".length);
    const slash = rest.indexOf("/");
    const bucket = slash === -1 ? rest : rest.slice(0, slash);
    const prefix = slash === -1 ? "" : rest.slice(slash + 1).replace(/^\/+|\/+$/g, "");
    if (!BUCKET.test(bucket) || prefix.length > 512 || prefix.split("/").some((part) => part === "." || part === "..")) return null;
    return { kind: "s3", bucket, prefix };
  }
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(raw) || raw.includes("\0")) return null;
  return { kind: "folder", path: raw };
}

export function describeTargetSpec(spec: TargetSpec): string {
  return spec.kind === "folder" ? spec.path : `s3://${spec.bucket}${spec.prefix ? `/${spec.prefix}` : ""}`;
}
