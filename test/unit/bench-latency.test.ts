/**
 * The benchmarks' guard against impossible latencies (issue 36): a push
 * delay is measured from the moment the change was sent and never clamped,
 * and no latency below one loopback round trip is ever printed.
 */
import { describe, expect, test } from "bun:test";
import { BenchFault, checkLatencies, delaysSince, loopbackRoundTripMs } from "../../scripts/bench/common.ts";

describe("push delays", () => {
  test("are each arrival's time after the send, unclamped", () => {
    expect(delaysSince(100, [100.5, 130, 101], "push")).toEqual([0.5, 30, 1]);
  });

  test("an arrival before the send is a fault of the bench, not a delay of 0", () => {
    expect(() => delaysSince(100, [130, 99.2], "push")).toThrow(BenchFault);
    expect(() => delaysSince(100, [130, 99.2], "push")).toThrow("1 arrived before the change was sent (-0.800 ms)");
  });
});

describe("the loopback floor", () => {
  test("one loopback round trip is measured in the run, and is more than nothing", async () => {
    const floor = await loopbackRoundTripMs();
    expect(floor).toBeGreaterThan(0);
    expect(await loopbackRoundTripMs()).toBe(floor);
  });

  test("a latency of 0.0 ms, or any below the floor, is refused", async () => {
    const floor = await loopbackRoundTripMs();
    await expect(checkLatencies("direct push p50 / p99", [0, 0])).rejects.toThrow(BenchFault);
    await expect(checkLatencies("direct push p50 / p99", [floor / 2, 40])).rejects.toThrow("below one loopback round trip");
    await expect(checkLatencies("direct push p50 / p99", [-1, 40])).rejects.toThrow("negative");
  });

  test("a latency at or above the floor passes", async () => {
    const floor = await loopbackRoundTripMs();
    expect(await checkLatencies("push p50 / p99", [floor, floor * 10 + 20])).toBeUndefined();
  });
});
