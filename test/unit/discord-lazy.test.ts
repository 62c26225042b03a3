/** An idle hub does not load the Discord code or its libraries; a hub with Discord configured does, as it builds its app. */
import { describe, expect, test } from "bun:test";
import { join } from "node:path";

const ROOT = join(import.meta.dir, "..", "..");

/** The modules of the Discord code and libraries a fresh process holds after building a hub with `env`. */
async function loaded(env: Record<string, string>): Promise<string[]> {
  const script = `
    const { createHub } = await import(${JSON.stringify(join(ROOT, "src", "hub.ts"))});
    const { configFrom } = await import(${JSON.stringify(join(ROOT, "src", "config", "load.ts"))});
    const { openDatabase } = await import(${JSON.stringify(join(ROOT, "src", "db", "open.ts"))});
    createHub(configFrom([], ${JSON.stringify(env)}).config, { db: openDatabase(":memory:") });
    await Bun.sleep(300);
    const root = ${JSON.stringify(ROOT)};
    console.log(JSON.stringify(Object.keys(require.cache).map((k) => k.slice(root.length)).filter((k) => k.startsWith("/node_modules/discord-") || k.startsWith("/src/discord/"))));
  `;
  const proc = Bun.spawn([process.execPath, "-e", script], { cwd: ROOT, stdout: "pipe", stderr: "pipe" });
  const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  if (code !== 0) throw new Error(err);
  return JSON.parse(out) as string[];
}

describe("Discord is loaded only when configured", () => {
  test("an idle hub holds none of it but the endpoint's path and invite", async () => {
    expect(await loaded({})).toEqual(["/src/discord/invite.ts"]);
  });

  test("a hub with DISCORD_APPLICATION_ID and DISCORD_PUBLIC_KEY loads the endpoint and both libraries", async () => {
    const modules = await loaded({ DISCORD_APPLICATION_ID: "1300000000000000001", DISCORD_PUBLIC_KEY: "ab".repeat(32) });
    expect(modules).toContain("/src/discord/endpoint.ts");
    expect(modules.some((m) => m.startsWith("/node_modules/discord-interactions/"))).toBe(true);
    expect(modules.some((m) => m.startsWith("/node_modules/discord-api-types/"))).toBe(true);
  });
});
