/**
 * S3 for the backup tests (SPEC §25): npm `s3rver` started on loopback in a
 * temporary folder (under Node, as its users run it), and a small front
 * before it that checks AWS Signature Version 4 as S3 does, since s3rver
 * checks none, and can play a target that is full or goes away.
 */
import { createHmac, createHash, timingSafeEqual } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const ROOT = join(import.meta.dir, "..");

export interface S3Server {
  readonly endpoint: string;
  readonly port: number;
  readonly dir: string;
  /** Stops the server at once (SIGKILL), as a machine that goes away. */
  kill(): Promise<void>;
  stop(): Promise<void>;
}

/** Starts s3rver on 127.0.0.1 with `buckets` made, files in a fresh temporary folder. */
export async function startS3rver(buckets: readonly string[], port = 0, folder?: string): Promise<S3Server> {
  const dir = folder ?? mkdtempSync(join(tmpdir(), "hub-s3rver-"));
  const script = `
    const S3rver = require("s3rver");
    new S3rver({ address: "127.0.0.1", port: ${port}, silent: true, directory: ${JSON.stringify(dir)}, configureBuckets: ${JSON.stringify(buckets.map((name) => ({ name })))} })
      .run()
      .then((address) => process.stdout.write("PORT " + address.port + "\\n"), (error) => { console.error(error); process.exit(1); });
  `;
  const proc = Bun.spawn(["node", "-e", script], { cwd: ROOT, stdout: "pipe", stderr: "pipe", env: { PATH: process.env.PATH ?? "/usr/bin:/bin", NODE_PATH: join(ROOT, "node_modules") } });
  const reader = proc.stdout.getReader();
  let text = "";
  const deadline = Date.now() + 15_000;
  while (!/PORT (\d+)/.test(text)) {
    if (Date.now() > deadline) throw new Error(`s3rver did not start: ${text}`);
    const { value, done } = await reader.read();
    if (done) throw new Error(`s3rver exited: ${text}${await new Response(proc.stderr).text()}`);
    text += new TextDecoder().decode(value);
  }
  reader.releaseLock();
  const actual = Number(/PORT (\d+)/.exec(text)?.[1]);
  const stopWith = async (signal: NodeJS.Signals): Promise<void> => {
    if (proc.exitCode === null) proc.kill(signal);
    await proc.exited;
  };
  return {
    endpoint: `http://127.0.0.1:${actual}`,
    port: actual,
    dir,
    kill: () => stopWith("SIGKILL"),
    async stop() {
      await stopWith("SIGTERM");
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

const hmac = (key: Buffer | string, data: string): Buffer => createHmac("sha256", key).update(data, "utf8").digest();
const sha256 = (data: string): string => createHash("sha256").update(data, "utf8").digest("hex");

/** RFC 3986 encoding as SigV4 asks for it: unreserved characters stay, everything else is %XX in upper case. */
function uriEncode(text: string, keepSlash: boolean): string {
  let out = "";
  for (const byte of new TextEncoder().encode(text)) {
    const c = String.fromCharCode(byte);
    if (/[A-Za-z0-9\-._~]/.test(c) || (keepSlash && c === "/")) out += c;
    else out += `%${byte.toString(16).toUpperCase().padStart(2, "0")}`;
  }
  return out;
}

/** Why a request's SigV4 signature is not valid for these credentials, or null when it is. */
export function signatureProblem(request: Request, credentials: { accessKeyId: string; secretAccessKey: string }): string | null {
  const authorization = request.headers.get("authorization") ?? "";
  const match = /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request, ?SignedHeaders=([^,]+), ?Signature=([0-9a-f]{64})$/.exec(authorization);
  if (!match) return "AccessDenied";
  const [, keyId = "", date = "", region = "", service = "", signedHeaders = "", signature = ""] = match;
  if (keyId !== credentials.accessKeyId) return "InvalidAccessKeyId";
  const url = new URL(request.url);
  const amzDate = request.headers.get("x-amz-date") ?? "";
  const payload = request.headers.get("x-amz-content-sha256") ?? "UNSIGNED-PAYLOAD";
  const path = url.pathname.split("/").map((segment) => uriEncode(decodeURIComponent(segment), false)).join("/");
  const query = [...url.searchParams]
    .map(([k, v]) => [uriEncode(k, false), uriEncode(v, false)] as const)
    .sort(([a, av], [b, bv]) => (a === b ? (av < bv ? -1 : 1) : a < b ? -1 : 1))
    .map(([k, v]) => `${k}=${v}`)
    .join("&");
  const headers = signedHeaders
    .split(";")
    .map((name) => `${name}:${(request.headers.get(name) ?? "").trim().replace(/\s+/g, " ")}\n`)
    .join("");
  const canonical = [request.method, path, query, headers, signedHeaders, payload].join("\n");
  const scope = `${date}/${region}/${service}/aws4_request`;
  const toSign = ["AWS4-HMAC-SHA256", amzDate, scope, sha256(canonical)].join("\n");
  const key = hmac(hmac(hmac(hmac(`AWS4${credentials.secretAccessKey}`, date), region), service), "aws4_request");
  const expected = createHmac("sha256", key).update(toSign, "utf8").digest();
  const given = Buffer.from(signature, "hex");
  return given.length === expected.length && timingSafeEqual(given, expected) ? null : "SignatureDoesNotMatch";
}

function s3Error(status: number, code: string, message: string): Response {
  return new Response(`<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${code}</Code><Message>${message}</Message></Error>`, {
    status,
    headers: { "content-type": "application/xml" },
  });
}

export type FrontMode = "pass" | "full" | "down";

export interface S3Front {
  readonly endpoint: string;
  /** pass: checked and forwarded; full: writes refused as a full store refuses them (507 … then 500); down: every request gets 503. */
  mode: FrontMode;
  /** Requests refused for their signature, by S3 error code. */
  readonly refused: string[];
  /** Runs when an upload arrives, before it is forwarded: a test stops the store there. */
  onUpload: ((request: Request) => Promise<void>) | null;
  stop(): void;
}

/** A front on loopback that checks each request's signature as S3 does, then hands it to `upstream`. */
export function startFront(upstream: string, credentials: { accessKeyId: string; secretAccessKey: string }): S3Front {
  const refused: string[] = [];
  const front: S3Front = {
    endpoint: "",
    mode: "pass",
    refused,
    onUpload: null,
    stop: () => server.stop(true),
  };
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request) {
      const problem = signatureProblem(request, credentials);
      if (problem) {
        refused.push(problem);
        return s3Error(403, problem, problem === "InvalidAccessKeyId" ? "The AWS access key Id you provided does not exist in our records." : "The request signature we calculated does not match the signature you provided.");
      }
      if (front.mode === "down") return s3Error(503, "ServiceUnavailable", "Please reduce your request rate.");
      if (front.mode === "full" && (request.method === "PUT" || request.method === "POST")) {
        await request.arrayBuffer();
        return s3Error(507, "InsufficientStorage", "The store has no room for this object.");
      }
      if (front.onUpload && request.method === "PUT") await front.onUpload(request);
      const url = new URL(request.url);
      const headers = new Headers(request.headers);
      headers.delete("host");
      const body = request.method === "GET" || request.method === "HEAD" ? null : await request.arrayBuffer();
      try {
        const answer = await fetch(`${upstream}${url.pathname}${url.search}`, { method: request.method, headers, body, redirect: "manual" });
        return new Response(answer.body, { status: answer.status, headers: answer.headers });
      } catch {
        return s3Error(502, "BadGateway", "The store behind the front did not answer.");
      }
    },
  });
  Object.assign(front, { endpoint: `http://127.0.0.1:${server.port}` });
  return front;
}
