import { describe, expect, test } from "bun:test";
import { earlySettled, readyEarly, startEarly, takeEarly } from "../../src/web/early.ts";

describe("requests started before the first render", () => {
  test("an answer not yet arrived is not ready; once it has, it is handed out once, synchronously", async () => {
    let resolve: (value: string) => void = () => undefined;
    startEarly("k1", () => new Promise<string>((r) => (resolve = r)));
    expect(readyEarly<string>("k1")).toBeUndefined();
    resolve("body");
    await earlySettled(1_000);
    expect(readyEarly<string>("k1")).toBe("body");
    expect(readyEarly<string>("k1")).toBeUndefined();
    expect(takeEarly<string>("k1")).toBeNull();
  });

  test("a taken request is no longer ready, and a failed one is never ready", async () => {
    startEarly("k2", async () => "taken");
    startEarly("k3", async () => Promise.reject(new Error("down")));
    expect(await takeEarly<string>("k2")).toBe("taken");
    await earlySettled(1_000);
    expect(readyEarly<string>("k2")).toBeUndefined();
    expect(readyEarly<string>("k3")).toBeUndefined();
    await expect(takeEarly<string>("k3")).rejects.toThrow("down");
  });

  test("waiting for them stops after the bound when one hangs", async () => {
    startEarly("k4", () => new Promise<string>(() => undefined));
    const started = performance.now();
    await earlySettled(50);
    expect(performance.now() - started).toBeLessThan(1_000);
    expect(readyEarly<string>("k4")).toBeUndefined();
    takeEarly("k4");
  });
});
