import { describe, expect, test } from "bun:test";
import { Elysia, t, type AnyElysia } from "elysia";
import { Type } from "@sinclair/typebox";
import { errorHandling, MAX_BODY_BYTES } from "../../src/http/errors.ts";
import { HttpProblem } from "../../src/domain/problem.ts";
import { call, expectProblem, json, memoryLog, testHub } from "../helpers.ts";

/** A small app with the hub's error plugin and routes that fail in every way. */
function probeApp() {
  const { log, lines } = memoryLog("warn");
  const app: AnyElysia = new Elysia()
    .use(errorHandling(log, () => app.routes, (response) => response, () => null))
    .post("/things", ({ body }) => ({ got: body }), {
      body: t.Object({ count: Type.Integer({ minimum: 0, maximum: 10 }), name: t.String({ maxLength: 5 }), password: t.Optional(t.String({ minLength: 10 })) }),
    })
    .get("/things/:id", ({ params }) => params, { params: t.Object({ id: t.Numeric() }) })
    .delete("/things/:id", () => new Response(null, { status: 204 }))
    .get("/explode", () => {
      throw new Error("SQLITE_CORRUPT: SELECT secret FROM users");
    })
    .get("/conflict", () => {
      throw new HttpProblem(409, "Already there.", { headers: { "x-extra": "1" } });
    });
  const send = (method: string, path: string, init: RequestInit = {}) =>
    app.handle(new Request(`http://localhost${path}`, { method, ...init }));
  return { send, lines };
}

const jsonInit = (body: string): RequestInit => ({ body, headers: { "content-type": "application/json" } });

describe("problem details for every kind of error", () => {
  test("validation errors are 400 with a location per field, and secrets are not echoed", async () => {
    const { send } = probeApp();
    const response = await send("POST", "/things", jsonInit(JSON.stringify({ count: "3", name: "too long", password: "short" })));
    expect(response.status).toBe(400);
    expectProblem(response);
    const body = await json<{ title: string; status: number; detail: string; errors: { location: string; message: string; value?: unknown }[] }>(response);
    expect(body.title).toBe("Bad Request");
    expect(body.status).toBe(400);
    const locations = body.errors.map((e) => e.location);
    expect(locations).toContain("body.count");
    expect(locations).toContain("body.name");
    expect(locations).toContain("body.password");
    expect(body.detail).toStartWith("Invalid body.");
    expect(body.errors.find((e) => e.location === "body.name")?.value).toBe("too long");
    expect(JSON.stringify(body)).not.toContain("short");
  });

  test("numbers must be numbers: strings, floats, NaN-like and huge values are refused", async () => {
    const { send } = probeApp();
    for (const count of ['"3"', "3.5", "1e400", "-1", "11", "null", "true", "[]"]) {
      const response = await send("POST", "/things", jsonInit(`{"count":${count},"name":"a"}`));
      expect(response.status).toBe(400);
      expectProblem(response);
    }
    const ok = await send("POST", "/things", jsonInit('{"count":3,"name":"a","unknown":"ignored"}'));
    expect(ok.status).toBe(200);
    expect(await ok.json()).toEqual({ got: { count: 3, name: "a" } });
  });

  test("malformed JSON is 400", async () => {
    const { send } = probeApp();
    for (const raw of ["{bad", '{"count":NaN}', '{"count":Infinity}', "[".repeat(100_000)]) {
      const response = await send("POST", "/things", jsonInit(raw));
      expect(response.status).toBe(400);
      expectProblem(response);
      expect((await json(response)).detail).toContain("JSON");
    }
  });

  test("invalid UTF-8 is 400", async () => {
    const { send } = probeApp();
    const response = await send("POST", "/things", { body: new Uint8Array([0x7b, 0xff, 0xfe, 0x7d]), headers: { "content-type": "application/json" } });
    expect(response.status).toBe(400);
    expect((await json(response)).detail).toContain("UTF-8");
  });

  test("non-JSON bodies are 415", async () => {
    const { send } = probeApp();
    for (const type of ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x"]) {
      const response = await send("POST", "/things", { body: "count=1", headers: { "content-type": type } });
      expect(response.status).toBe(415);
      expectProblem(response);
    }
    const none = await send("POST", "/things", { body: new Blob(["{}"]).stream(), duplex: "half" } as RequestInit);
    expect(none.status).toBe(415);
  });

  test("bodies over 1 MiB are 413, by declared length or by what actually arrives", async () => {
    const { send } = probeApp();
    const big = JSON.stringify({ count: 1, name: "x".repeat(MAX_BODY_BYTES) });
    const declared = await send("POST", "/things", jsonInit(big));
    expect(declared.status).toBe(413);
    expectProblem(declared);
    const streamed = new ReadableStream<Uint8Array>({
      start(controller) {
        const chunk = new TextEncoder().encode("x".repeat(64 * 1024));
        for (let i = 0; i < 20; i++) controller.enqueue(chunk);
        controller.close();
      },
    });
    const chunked = await send("POST", "/things", { body: streamed, headers: { "content-type": "application/json" }, duplex: "half" } as RequestInit);
    expect(chunked.status).toBe(413);
    expectProblem(chunked);
    const justUnder = await send("POST", "/things", jsonInit(JSON.stringify({ count: 1, name: "ab", pad: "x".repeat(MAX_BODY_BYTES - 100) })));
    expect(justUnder.status).toBe(200);
  });

  test("unknown routes are 404 and wrong methods are 405 with Allow", async () => {
    const { send } = probeApp();
    const missing = await send("GET", "/nowhere");
    expect(missing.status).toBe(404);
    expectProblem(missing);
    expect((await json(missing)).detail).toContain("/nowhere");
    const wrong = await send("PUT", "/things/7");
    expect(wrong.status).toBe(405);
    expectProblem(wrong);
    expect(wrong.headers.get("allow")).toBe("GET, DELETE");
    const params = await send("GET", "/things/abc");
    expect(params.status).toBe(400);
    expectProblem(params);
  });

  test("unexpected failures are 500 without internals, and are logged", async () => {
    const { send, lines } = probeApp();
    const response = await send("GET", "/explode");
    expect(response.status).toBe(500);
    expectProblem(response);
    const text = await response.text();
    expect(text).not.toContain("SQLITE");
    expect(text).not.toContain("secret");
    expect(text).not.toContain("at ");
    expect(lines.some((l) => l.level === "error" && JSON.stringify(l).includes("SQLITE_CORRUPT"))).toBe(true);
  });

  test("thrown problems keep their status, detail and headers", async () => {
    const { send } = probeApp();
    const response = await send("GET", "/conflict");
    expect(response.status).toBe(409);
    expect(response.headers.get("x-extra")).toBe("1");
    expect(await response.json()).toEqual({ title: "Conflict", status: 409, detail: "Already there." });
  });
});

describe("the assembled hub", () => {
  test("uses the same error shapes", async () => {
    const hub = testHub();
    const missing = await call(hub, "GET", "/api/v1/nothing");
    expect(missing.status).toBe(404);
    expectProblem(missing);
    const wrong = await call(hub, "DELETE", "/healthz");
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get("allow")).toBe("GET");
    const tooBig = await call(hub, "POST", "/healthz", { headers: { "content-length": String(2 * MAX_BODY_BYTES) } });
    expect(tooBig.status).toBe(413);
    expectProblem(tooBig);
  });
});
