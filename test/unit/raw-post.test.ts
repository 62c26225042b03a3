import { describe, expect, test } from "bun:test";
import { completeAnswer, RawPoster } from "../../scripts/bench/raw-post.ts";

describe("the ingest bench's load client", () => {
  test("an answer is complete only once its whole body has arrived", () => {
    const head = "HTTP/1.1 201 Created\r\ncontent-type: application/json\r\nContent-Length: 11\r\n\r\n";
    expect(completeAnswer(head)).toBeNull();
    expect(completeAnswer(`${head}{"live":tr`)).toBeNull();
    expect(completeAnswer(`${head}{"live":true}`)).toEqual({ status: 201, length: head.length + 11 });
    // A second answer already behind it is left for the next request.
    expect(completeAnswer(`${head}{"live":true}HTTP/1.1 4`)?.length).toBe(head.length + 11);
    const chunked = "HTTP/1.1 429 Too Many Requests\r\nTransfer-Encoding: chunked\r\n\r\n";
    expect(completeAnswer(`${chunked}4\r\nslow\r\n`)).toBeNull();
    expect(completeAnswer(`${chunked}4\r\nslow\r\n0\r\n\r\n`)).toEqual({ status: 429, length: chunked.length + 14 });
    expect(completeAnswer(`HTTP/1.1 204 No Content\r\n\r\n`)).toEqual({ status: 204, length: 27 });
  });

  test("posts reach the server with their token and body, reuse idle connections and report status and latency", async () => {
    const seen: { auth: string | null; body: string }[] = [];
    const server = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      async fetch(request) {
        const body = await request.text();
        seen.push({ auth: request.headers.get("authorization"), body });
        await Bun.sleep(body === "slow" ? 30 : 0);
        return Response.json({ ok: body.length }, { status: body === "bad" ? 400 : 201 });
      },
    });
    const client = RawPoster.fromUrl(`http://127.0.0.1:${server.port}/api/v1/agent/readings`);
    try {
      const first = await client.post("token-a", "slow");
      expect(first.status).toBe(201);
      expect(first.ms).toBeGreaterThanOrEqual(25);
      expect((await client.post("token-b", "bad")).status).toBe(400);
      // Ten at once need ten connections; afterwards they are all reused.
      const answers = await Promise.all(Array.from({ length: 10 }, (_, i) => client.post(`token-${i}`, "{}")));
      expect(answers.map((a) => a.status)).toEqual(Array(10).fill(201));
      const again = await Promise.all(Array.from({ length: 10 }, () => client.post("token-x", "{}")));
      expect(again.every((a) => a.status === 201)).toBe(true);
      expect(client.connections).toBe(10);
      expect(seen[0]).toEqual({ auth: "Bearer token-a", body: "slow" });
      expect(seen.length).toBe(22);
      expect(server.pendingRequests).toBe(0);
    } finally {
      client.close();
      await server.stop(true);
    }
  });
});
