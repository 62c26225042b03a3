/**
 * Web Push through the compiled binary (SPEC §23): without a contact push is
 * off, says what to set at /api/v1/push/key and warns once in the start log;
 * `hub push rotate-key` makes a new key beside a serving hub (through its
 * control socket) and on a stopped hub's file, and says what it costs;
 * /sw.js is served from inside the binary with the build's files; a push
 * is written in its subscriber's language, whose words the binary loads with
 * the first push in it.
 */
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { scratchDirs } from "../helpers.ts";
import { PushService } from "../push-service.ts";
import { compiledHub } from "./compiled.ts";
import { eventually, postReading, runCli, startHub } from "./harness.ts";

const scratch = scratchDirs();

async function publicKey(url: string): Promise<{ status: number; key: string | null; detail: string | null }> {
  const response = await fetch(`${url}/api/v1/push/key`);
  const body = (await response.json()) as { publicKey?: string; detail?: string };
  return { status: response.status, key: body.publicKey ?? null, detail: body.detail ?? null };
}

describe("push through the binary", () => {
  test("no contact: push is off, the key answers 404 saying what to set, the start log warns once", async () => {
    const dir = scratch();
    const hub = await startHub({ cmd: [await compiledHub()], cwd: dir, args: ["--db", join(dir, "hub.db")] });
    try {
      const answer = await publicKey(hub.url);
      expect(answer.status).toBe(404);
      expect(answer.detail).toContain("set CONTACT_EMAIL, or serve the hub at an https ORIGIN");
      expect(hub.output().split("\n").filter((line) => line.includes("Web Push needs a contact"))).toHaveLength(1);
    } finally {
      await hub.stop();
    }
  }, 120_000);

  test("rotate-key beside a serving hub and on a stopped hub's file; /sw.js carries the build's files", async () => {
    const dir = scratch();
    const binary = await compiledHub();
    const db = join(dir, "hub.db");
    const env = { CONTACT_EMAIL: "ops@example.org" };
    const hub = await startHub({ cmd: [binary], cwd: dir, args: ["--db", db], env });
    let current: string | null;
    try {
      const first = await publicKey(hub.url);
      expect(first.status).toBe(200);
      const rotated = await runCli(["push", "rotate-key", "--db", db], { cmd: [binary], cwd: dir, env });
      expect(rotated.stderr).toBe("");
      expect(rotated.exitCode).toBe(0);
      expect(rotated.stdout).toContain("every push subscription was dropped");
      current = (await publicKey(hub.url)).key;
      expect(current).not.toBe(first.key);

      const worker = await fetch(`${hub.url}/sw.js`);
      expect(worker.status).toBe(200);
      expect(worker.headers.get("content-type")).toContain("javascript");
      expect(worker.headers.get("cache-control")).toBe("no-cache");
      const text = await worker.text();
      const files = JSON.parse(/const FILES = (\[.*\]);/.exec(text)?.[1] ?? "[]") as string[];
      expect(files.length).toBeGreaterThan(3);
      expect(files.every((file) => !file.startsWith("/api/") && !file.startsWith("/admin"))).toBe(true);
      const page = await (await fetch(`${hub.url}/`)).text();
      for (const script of page.matchAll(/src="([^"]+\.js)"/g)) expect(files).toContain(script[1] ?? "");
      expect(text).toContain("self.addEventListener(\"push\"");
    } finally {
      await hub.stop();
    }
    const offline = await runCli(["push", "rotate-key", "--db", db], { cmd: [binary], cwd: dir, env });
    expect(offline.exitCode).toBe(0);
    const again = await startHub({ cmd: [binary], cwd: dir, args: ["--db", db], env });
    try {
      const after = await publicKey(again.url);
      expect(after.status).toBe(200);
      expect(after.key).not.toBe(current);
    } finally {
      await again.stop();
    }
  }, 120_000);

  test("each subscriber's push is in their language: the binary loads a language's words with the first push in it", async () => {
    const dir = scratch();
    const service = await PushService.start(dir);
    const token = "push-language-token-0123456789abcdef";
    const hub = await startHub({
      cmd: [await compiledHub()],
      cwd: dir,
      args: ["--db", join(dir, "hub.db")],
      env: { CONTACT_EMAIL: "ops@example.org", PUSH_SERVICE_HOSTS: "localhost", WEBHOOK_ALLOW_PRIVATE: "true", NODE_EXTRA_CA_CERTS: service.certPath, PROVISION_AGENTS: `p0:${token}:eu-west-1:steam` },
    });
    try {
      const { key } = await publicKey(hub.url);
      const subscribers = await Promise.all(
        ["ja", "fr", "en"].map(async (lang) => {
          const subscription = await service.subscribe(key ?? "");
          const response = await fetch(`${hub.url}/api/v1/push/subscriptions`, {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: JSON.stringify({ subscription: { endpoint: subscription.endpoint, keys: subscription.keys }, lang, rules: [{ platform: "Windows", region: "eu-west-1", role: "killer", minBonus: 75 }] }),
          });
          expect(response.status).toBe(201);
          return { lang, subscription };
        }),
      );
      expect(await postReading(hub.url, token, Date.now() - 1000, { killer: 100 })).toBe(201);
      const titles = new Map<string, string>();
      await eventually(async () => {
        for (const { lang, subscription } of subscribers) {
          const [text] = await service.messages(subscription.clientHash);
          if (text) titles.set(lang, (JSON.parse(text) as { title: string }).title);
        }
        return titles.size === subscribers.length;
      });
      expect(titles.get("ja")).toBe("EU West (Ireland), Steam: キラーボーナス +100%");
      expect(titles.get("fr")).toBe("EU West (Ireland), Steam : bonus Tueur +100 %");
      expect(titles.get("en")).toBe("EU West (Ireland), Steam: Killer bonus +100%");
    } finally {
      await hub.stop();
      service.stop();
    }
  }, 120_000);
});
