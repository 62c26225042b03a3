/** Bench fixtures: one provisioned agent per catalogue region on Steam, each with one live reading. */
import { BUILT_IN_REGIONS } from "../../src/domain/catalogue.ts";

export const REGION_AGENTS = BUILT_IN_REGIONS.map((region, i) => ({ id: `bench-${i}`, token: `bench-token-${String(i).padStart(4, "0")}-abcdefghij`, region: region.id }));
export const REGION_TOKENS = REGION_AGENTS.map((a) => `${a.id}:${a.token}:${a.region}:steam`).join(",");

/** Posts one reading per region so the payload is the size a busy hub serves. */
export async function seedLiveHub(url: string): Promise<void> {
  for (const [i, agent] of REGION_AGENTS.entries()) {
    const response = await fetch(`${url}/api/v1/agent/readings`, {
      method: "POST",
      headers: { authorization: `Bearer ${agent.token}`, "content-type": "application/json" },
      body: JSON.stringify({ region: agent.region, platform: "Windows", survivor: (i % 3) * 25, killer: (i % 4) * 25, ratio: 1 + i / 10, isReal: true, measuredAt: new Date().toISOString(), version: "9.3.0", category: "live" }),
    });
    if (response.status !== 201) throw new Error(`seeding failed: ${response.status} ${await response.text()}`);
  }
}
