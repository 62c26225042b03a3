import { describe, expect, test } from "bun:test";
import { call, expectProblem, testHub } from "../helpers.ts";
import { createHub } from "../../src/hub.ts";
import { testConfig, memoryDb } from "../helpers.ts";

const PAGE = "<!doctype html><title>app</title>";

function hubWithPage() {
  return createHub(testConfig(), { db: memoryDb(), notFoundPage: async () => new Response(PAGE, { status: 404, headers: { "content-type": "text/html; charset=utf-8" } }) });
}

describe("addresses people type (SPEC §17.1)", () => {
  const cases: [string, string][] = [
    ["/steam", "/Windows"],
    ["/STEAM", "/Windows"],
    ["/windows", "/Windows"],
    ["/WINDOWS", "/Windows"],
    ["/epic", "/EGS"],
    ["/Epic", "/EGS"],
    ["/egs", "/EGS"],
    ["/xbox", "/GRDK"],
    ["/XBox", "/GRDK"],
    ["/microsoft", "/GRDK"],
    ["/grdk", "/GRDK"],
    ["/Grdk", "/GRDK"],
    ["/steam/eu-west-1", "/Windows/eu-west-1"],
    ["/epic?sort=bonus", "/EGS?sort=bonus"],
  ];
  for (const [from, to] of cases) {
    test(`${from} → 301 ${to}`, async () => {
      const response = await call(testHub(), "GET", from, { headers: { accept: "text/html" } });
      expect(response.status).toBe(301);
      expect(response.headers.get("location")).toBe(to);
      expect(response.headers.get("x-content-type-options")).toBe("nosniff");
    });
  }

  test("an unknown page asked for by a browser gets the app's HTML with 404; anything else the JSON problem", async () => {
    const hub = hubWithPage();
    const page = await call(hub, "GET", "/nowhere/at/all", { headers: { accept: "text/html,application/xhtml+xml,*/*;q=0.8" } });
    expect(page.status).toBe(404);
    expect(page.headers.get("content-type")).toStartWith("text/html");
    expect(await page.text()).toBe(PAGE);
    for (const [path, accept] of [
      ["/nowhere", "application/json"],
      ["/nowhere", "*/*"],
      ["/api/v1/nowhere", "text/html"],
      ["/api/nowhere", "text/html"],
    ] as const) {
      const response = await call(hub, "GET", path, { headers: { accept } });
      expect(response.status).toBe(404);
      expectProblem(response);
    }
    expect((await call(hub, "POST", "/steam", { body: {}, headers: { accept: "text/html" } })).status).toBe(404);
  });
});
