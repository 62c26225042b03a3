/**
 * The Discord baseline: a bare Bun.serve that does what any interactions
 * endpoint must (reads the raw body, verifies its Ed25519 signature with
 * discord-interactions and the same imported key, parses it) and answers a
 * fixed embed of the hub's size, with none of the hub's work around it.
 * Arguments: port, the public key in hex.
 */
import { verifyKey } from "discord-interactions";

const port = Number(process.argv[2] ?? 0);
const publicKey = await crypto.subtle.importKey("raw", Buffer.from(process.argv[3] ?? "", "hex"), { name: "Ed25519" }, false, ["verify"]);
const ANSWER = JSON.stringify({
  type: 4,
  data: {
    embeds: [{ title: "🇩🇪 EU Central \\(Frankfurt\\), Steam", url: "http://localhost/Windows/eu-central-1", description: "**Killer +75 %**", color: 13712187, fields: [] }],
    components: [{ type: 1, components: [{ type: 2, style: 2, label: "Refresh", custom_id: "refresh:Windows:eu-central-1" }] }],
    allowed_mentions: { parse: [] },
  },
});

Bun.serve({
  hostname: "127.0.0.1",
  port,
  async fetch(request) {
    if (request.method === "GET") return new Response("ok");
    const raw = new Uint8Array(await request.arrayBuffer());
    const ok = await verifyKey(raw, request.headers.get("x-signature-ed25519") ?? "", request.headers.get("x-signature-timestamp") ?? "", publicKey);
    if (!ok) return new Response("bad signature", { status: 401 });
    JSON.parse(new TextDecoder().decode(raw));
    return new Response(ANSWER, { headers: { "content-type": "application/json" } });
  },
});
