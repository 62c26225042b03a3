/**
 * Where backups are kept, behind one small interface (SPEC §25): a folder on
 * this machine or another mount, or a bucket on S3-compatible storage through
 * Bun's own S3 client. Names given to a target are backup names only
 * (`hub-….db.zst[.enc]`); listing shows nothing else that lives there.
 */
import { closeSync, createReadStream, fsyncSync, mkdirSync, openSync, readdirSync, renameSync, rmSync, statSync } from "node:fs";
import { pipeline } from "node:stream/promises";
import { syncedFile } from "./synced.ts";
import { join, resolve } from "node:path";
import { parseBackupName } from "./format.ts";
import { describeTargetSpec, type TargetSpec } from "../config/backup-target.ts";

export interface StoredBackup {
  readonly name: string;
  readonly size: number;
  /** From the name: when its snapshot was taken, epoch ms. */
  readonly createdAt: number;
  readonly schemaVersion: number;
  readonly encrypted: boolean;
}

/** What the target holds under a name, read back whole. */
export interface ReadBack {
  readonly size: number;
  readonly sha256: string;
}

export interface BackupTarget {
  /** Where, for messages and the console: a path or an s3:// address, never a credential. */
  readonly description: string;
  /** Stores the file at `path` under `name`. */
  put(name: string, path: string): Promise<void>;
  readBack(name: string): Promise<ReadBack>;
  /** Writes what is stored under `name` to a new file at `path`. */
  download(name: string, path: string): Promise<void>;
  stream(name: string): ReadableStream<Uint8Array>;
  /** Every backup there, oldest first. */
  list(): Promise<StoredBackup[]>;
  remove(name: string): Promise<void>;
}

/** A target that cannot be used, or refused what was asked; the message names the target and the cause, never a secret. */
export class BackupTargetError extends Error {
  override readonly name = "BackupTargetError";
}

export interface S3Credentials {
  readonly endpoint: string | null;
  readonly region: string | null;
  readonly accessKeyId: string | null;
  readonly secretAccessKey: string | null;
}

function assertBackupName(name: string): void {
  if (!parseBackupName(name)) throw new BackupTargetError(`"${name}" is not the name of a hub backup`);
}

function stored(name: string, size: number): StoredBackup | null {
  const parsed = parseBackupName(name);
  return parsed ? { name, size, ...parsed } : null;
}

function byName(a: StoredBackup, b: StoredBackup): number {
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}

async function hashStream(stream: ReadableStream<Uint8Array>): Promise<ReadBack> {
  const hasher = new Bun.CryptoHasher("sha256");
  let size = 0;
  for await (const chunk of stream) {
    hasher.update(chunk);
    size += chunk.byteLength;
  }
  return { size, sha256: hasher.digest("hex") };
}

/** Removes a temporary file without letting a failure to remove it hide the error that made it a leftover. */
function removeLeftover(path: string): void {
  try {
    rmSync(path, { force: true });
  } catch {
    // The write's own error is the one to report; a leftover has a dot name and is never listed as a backup.
  }
}

function syncFile(path: string): void {
  const fd = openSync(path, "r");
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

async function streamToFile(stream: ReadableStream<Uint8Array>, path: string): Promise<void> {
  await pipeline(stream, syncedFile(path, "wx"));
}

function cause(error: unknown): string {
  if (error instanceof Error) {
    const code = "code" in error && typeof error.code === "string" ? error.code : "";
    return code && !error.message.includes(code) ? `${code}: ${error.message}` : error.message;
  }
  return String(error);
}

class FolderTarget implements BackupTarget {
  readonly description: string;
  private readonly dir: string;

  constructor(path: string) {
    this.dir = resolve(path);
    this.description = this.dir;
  }

  async put(name: string, path: string): Promise<void> {
    assertBackupName(name);
    const temporary = join(this.dir, `.${name}.${process.pid}.tmp`);
    try {
      mkdirSync(this.dir, { recursive: true, mode: 0o700 });
      await pipeline(createReadStream(path, { highWaterMark: 1 << 20 }), syncedFile(temporary, "wx"));
      renameSync(temporary, join(this.dir, name));
      syncFile(this.dir);
    } catch (error) {
      removeLeftover(temporary);
      throw new BackupTargetError(`writing ${name} to ${this.dir} failed (${cause(error)})`);
    }
  }

  async readBack(name: string): Promise<ReadBack> {
    assertBackupName(name);
    try {
      return await hashStream(Bun.file(join(this.dir, name)).stream());
    } catch (error) {
      throw new BackupTargetError(`reading ${name} back from ${this.dir} failed (${cause(error)})`);
    }
  }

  async download(name: string, path: string): Promise<void> {
    assertBackupName(name);
    try {
      await streamToFile(Bun.file(join(this.dir, name)).stream(), path);
    } catch (error) {
      throw new BackupTargetError(`reading ${name} from ${this.dir} failed (${cause(error)})`);
    }
  }

  stream(name: string): ReadableStream<Uint8Array> {
    assertBackupName(name);
    return Bun.file(join(this.dir, name)).stream();
  }

  async list(): Promise<StoredBackup[]> {
    let names: string[];
    try {
      names = readdirSync(this.dir);
    } catch (error) {
      if (error instanceof Error && "code" in error && error.code === "ENOENT") return [];
      throw new BackupTargetError(`listing ${this.dir} failed (${cause(error)})`);
    }
    return names
      .flatMap((name) => {
        const entry = parseBackupName(name) ? stored(name, statSync(join(this.dir, name)).size) : null;
        return entry ? [entry] : [];
      })
      .sort(byName);
  }

  async remove(name: string): Promise<void> {
    assertBackupName(name);
    try {
      rmSync(join(this.dir, name), { force: true });
    } catch (error) {
      throw new BackupTargetError(`deleting ${name} from ${this.dir} failed (${cause(error)})`);
    }
  }
}

class S3Target implements BackupTarget {
  readonly description: string;
  private readonly client: Bun.S3Client;

  constructor(
    private readonly spec: Extract<TargetSpec, { kind: "s3" }>,
    credentials: S3Credentials,
  ) {
    this.description = describeTargetSpec(spec);
    this.client = new Bun.S3Client({
      bucket: spec.bucket,
      ...(credentials.endpoint ? { endpoint: credentials.endpoint } : {}),
      ...(credentials.region ? { region: credentials.region } : {}),
      ...(credentials.accessKeyId ? { accessKeyId: credentials.accessKeyId } : {}),
      ...(credentials.secretAccessKey ? { secretAccessKey: credentials.secretAccessKey } : {}),
      retry: 1,
    });
  }

  private key(name: string): string {
    assertBackupName(name);
    return this.spec.prefix ? `${this.spec.prefix}/${name}` : name;
  }

  private failure(what: string, error: unknown): BackupTargetError {
    return new BackupTargetError(`${what} at ${this.description} failed (${cause(error)})`);
  }

  async put(name: string, path: string): Promise<void> {
    try {
      await this.client.write(this.key(name), Bun.file(path), { type: "application/octet-stream" });
    } catch (error) {
      throw this.failure(`uploading ${name}`, error);
    }
  }

  async readBack(name: string): Promise<ReadBack> {
    try {
      return await hashStream(this.client.file(this.key(name)).stream());
    } catch (error) {
      throw this.failure(`reading ${name} back`, error);
    }
  }

  async download(name: string, path: string): Promise<void> {
    try {
      await streamToFile(this.client.file(this.key(name)).stream(), path);
    } catch (error) {
      throw this.failure(`downloading ${name}`, error);
    }
  }

  stream(name: string): ReadableStream<Uint8Array> {
    return this.client.file(this.key(name)).stream();
  }

  async list(): Promise<StoredBackup[]> {
    const prefix = this.spec.prefix ? `${this.spec.prefix}/` : "";
    const found: StoredBackup[] = [];
    let continuationToken: string | undefined;
    try {
      for (;;) {
        const page = await this.client.list({ prefix, ...(continuationToken ? { continuationToken } : {}) });
        for (const object of page.contents ?? []) {
          const name = object.key.slice(prefix.length);
          const entry = name.includes("/") ? null : stored(name, object.size ?? 0);
          if (entry) found.push(entry);
        }
        if (!page.isTruncated || !page.nextContinuationToken) break;
        continuationToken = page.nextContinuationToken;
      }
    } catch (error) {
      throw this.failure("listing backups", error);
    }
    return found.sort(byName);
  }

  async remove(name: string): Promise<void> {
    try {
      await this.client.delete(this.key(name));
    } catch (error) {
      throw this.failure(`deleting ${name}`, error);
    }
  }
}

export function openTarget(spec: TargetSpec, credentials: S3Credentials): BackupTarget {
  return spec.kind === "folder" ? new FolderTarget(spec.path) : new S3Target(spec, credentials);
}
