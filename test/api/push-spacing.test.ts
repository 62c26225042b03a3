/** Changed payloads are pushed at most once per FLUSH_SPACING_MS (src/live/store.ts): the first at once, the rest coalesced, the newest always. */
import { expect, test } from "bun:test";
import { BUILT_IN_REGIONS } from "../../src/domain/catalogue.ts";
import { FLUSH_SPACING_MS } from "../../src/live/store.ts";
import { testHub } from "../helpers.ts";
import { addAgent, post, reading } from "../live-helpers.ts";

test("a change after a quiet spell is pushed at once; changes close together are pushed FLUSH_SPACING_MS apart, the last one included", async () => {
  const hub = testHub();
  const regions = BUILT_IN_REGIONS.slice(0, 10).map((r) => r.id);
  const agents = regions.map((region) => addAgent(hub, region));
  const pushes: { at: number; killers: Map<string, number> }[] = [];
  hub.ctx.live.onChange((published) => {
    if (published.platform === "Windows") pushes.push({ at: performance.now(), killers: new Map(published.content.regions.map((r) => [r.region, r.killer])) });
  });
  // The agents' own change (the regions now covered) is pushed first; the quiet spell starts after it.
  await Bun.sleep(FLUSH_SPACING_MS + 5);
  pushes.length = 0;
  const now = Date.now();
  const [first, ...rest] = agents;
  if (!first) throw new Error("no agent");
  expect((await post(hub, first, reading("Windows", regions[0] ?? "", now - 1000, { killer: 25 }))).status).toBe(201);
  // After a quiet spell the change is pushed before the reading is even answered.
  expect(pushes).toHaveLength(1);
  for (const [i, agent] of rest.entries()) {
    expect((await post(hub, agent, reading("Windows", regions[i + 1] ?? "", now - 1000, { killer: 50 }))).status).toBe(201);
    await Bun.sleep(1);
  }
  await Bun.sleep(FLUSH_SPACING_MS + 5);
  // Never two pushes closer than the spacing (a timer may fire a fraction of a millisecond early); without it, one per change.
  expect(pushes.length).toBeGreaterThan(1);
  for (let i = 1; i < pushes.length; i++) expect((pushes[i]?.at ?? 0) - (pushes[i - 1]?.at ?? 0)).toBeGreaterThanOrEqual(FLUSH_SPACING_MS - 1);
  // The newest push holds every change.
  const last = pushes.at(-1)?.killers;
  expect(regions.map((region) => last?.get(region))).toEqual([25, ...regions.slice(1).map(() => 50)]);
});
