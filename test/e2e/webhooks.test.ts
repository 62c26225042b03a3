/**
 * The webhook outbox across a SIGKILL (SPEC §18): deliveries written while
 * the receiver was down survive the hub being killed, are sent once it is
 * back, each exactly once, and nothing acknowledged is sent again after a
 * restart.
 */
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { Webhook } from "standardwebhooks";
import { scratchDirs } from "../helpers.ts";
import { eventually, freePort, signedIn, startHub, type JsonCaller } from "./harness.ts";

const scratch = scratchDirs();
const PASSWORD = "correct horse battery";
const REGIONS = ["eu-west-1", "eu-west-2", "eu-central-1", "us-east-1"];
const AGENTS = REGIONS.map((region, i) => ({ id: `w${i}`, token: `webhook-e2e-agent-token-${String(i).padStart(4, "0")}`, region }));

interface DeliveryView {
  id: number;
  messageId: string;
  type: string;
  status: string;
  attempts: number;
  lastError: string | null;
}

describe("the webhook outbox", () => {
  test("deliveries pending at a SIGKILL arrive after the restart, each exactly once, and never again", async () => {
    const db = join(scratch(), "hub.db");
    const receiverPort = await freePort();
    const env = {
      PROVISION_AGENTS: AGENTS.map((a) => `${a.id}:${a.token}:${a.region}:steam`).join(","),
      ADMIN_BOOTSTRAP_USER: "root",
      ADMIN_BOOTSTRAP_PASSWORD: PASSWORD,
      MFA_ENFORCED_ROLES: "",
      WEBHOOK_ALLOW_PRIVATE: "true",
    };
    const first = await startHub({ args: ["--db", db], env });
    let secret = "";
    let webhookId = 0;
    const deliveries = async (api: JsonCaller) => (await api<{ deliveries: DeliveryView[] }>("GET", `/api/v1/admin/webhooks/${webhookId}/deliveries`)).body.deliveries;
    try {
      const api = await signedIn(first.url, "root", PASSWORD);
      const made = await api<{ webhook: { id: number }; secret: string }>("POST", "/api/v1/admin/webhooks", {
        url: `http://127.0.0.1:${receiverPort}/hook`,
        format: "json",
        roles: ["killer"],
        minBonus: 50,
      });
      expect(made.status).toBe(201);
      secret = made.body.secret;
      webhookId = made.body.webhook.id;
      for (const agent of AGENTS) {
        const response = await fetch(`${first.url}/api/v1/agent/readings`, {
          method: "POST",
          headers: { authorization: `Bearer ${agent.token}`, "content-type": "application/json" },
          body: JSON.stringify({ region: agent.region, platform: "Windows", survivor: 0, killer: 100, ratio: 2, isReal: true, measuredAt: new Date().toISOString() }),
        });
        expect(response.status).toBe(201);
      }
      expect((await api("POST", `/api/v1/admin/webhooks/${webhookId}/test`)).status).toBe(202);
      // The receiver is down: the first delivery fails and waits for its retry; the rest wait behind it.
      await eventually(async () => ((await deliveries(api)).at(-1)?.attempts ?? 0) >= 1);
      const before = await deliveries(api);
      expect(before.map((d) => d.status)).toEqual(["pending", "pending", "pending", "pending", "pending"]);
      expect(before.at(-1)?.lastError).toMatch(/^request failed/);
    } finally {
      first.proc.kill("SIGKILL");
      await first.proc.exited;
    }

    const received: { id: string; type: string }[] = [];
    const verifier = new Webhook(secret);
    const receiver = Bun.serve({
      hostname: "127.0.0.1",
      port: receiverPort,
      fetch: async (request) => {
        const body = await request.text();
        const message = verifier.verify(body, Object.fromEntries(request.headers)) as { type: string };
        received.push({ id: request.headers.get("webhook-id") ?? "", type: message.type });
        return new Response(null, { status: 204 });
      },
    });
    try {
      const second = await startHub({ args: ["--db", db], env });
      let ids: string[] = [];
      try {
        const api = await signedIn(second.url, "root", PASSWORD);
        await eventually(async () => (await deliveries(api)).every((d) => d.status === "delivered"));
        ids = (await deliveries(api)).map((d) => d.messageId).reverse();
        await Bun.sleep(500);
      } finally {
        expect(await second.stop()).toBe(0);
      }
      // webhook-id is each delivery's messageId, the same whether it was first attempted before the kill or after.
      expect(received.map((r) => r.id)).toEqual(ids);
      expect(new Set(ids).size).toBe(ids.length);
      expect(received.map((r) => r.type)).toEqual(["bonus.reached", "bonus.reached", "bonus.reached", "bonus.reached", "test"]);

      const third = await startHub({ args: ["--db", db], env });
      await Bun.sleep(1000);
      expect(await third.stop()).toBe(0);
      expect(received.length).toBe(5);
    } finally {
      await receiver.stop(true);
    }
  }, 90_000);
});
