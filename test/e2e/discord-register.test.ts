/**
 * `hub discord register` against a local server playing Discord's REST API:
 * every command within Discord's rules in every language, one bulk overwrite,
 * the same result when run again, the invite URL, and one line on errors.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { APPLICATION_ID, discordEnv, discordKeys } from "../discord.ts";
import { commandProblems, fakeDiscord } from "../discord-api.ts";
import { runCli } from "./harness.ts";

const TOKEN = "bot-token-for-the-register-test.abcdef";
const GUILD = "1200000000000000002";
const discord = fakeDiscord(APPLICATION_ID, TOKEN, [GUILD]);
afterAll(() => discord.stop());
const keys = discordKeys();
const env = { ...discordEnv(keys), DISCORD_BOT_TOKEN: TOKEN, DISCORD_API_URL: discord.url, ORIGIN: "https://hub.example.org", DB_PATH: ":memory:" };
const INVITE = `invite: https://discord.com/oauth2/authorize?client_id=${APPLICATION_ID}&scope=applications.commands`;

describe("the local Discord's rules", () => {
  test("it refuses what Discord refuses, so a command set it takes is one Discord would take", () => {
    const good = { name: "bonus", description: "A region's bonus", options: [] };
    expect(commandProblems(good)).toEqual([]);
    expect(commandProblems({ ...good, name: "Bonus" })).toEqual(['command "Bonus": name "Bonus" is not lower case']);
    expect(commandProblems({ ...good, name: "two words" })).toHaveLength(1);
    expect(commandProblems({ ...good, name: "โบนัส" })).toHaveLength(1);
    expect(commandProblems({ ...good, description: "x".repeat(101) })).toHaveLength(1);
    expect(commandProblems({ ...good, description: "" })).toHaveLength(1);
    expect(commandProblems({ ...good, name_localizations: { xx: "bonus" } })).toEqual(['command "bonus" name: "xx" is not one of Discord\'s locales']);
    expect(commandProblems({ ...good, description_localizations: { de: "y".repeat(101) } })).toHaveLength(1);
    const option = (i: number) => ({ type: 3, name: `o${i}`, description: "an option" });
    expect(commandProblems({ ...good, options: Array.from({ length: 26 }, (_, i) => option(i)) })).toContain('command "bonus": at most 25 options');
    expect(commandProblems({ ...good, options: [option(1), { ...option(2), required: true }] })).toHaveLength(1);
  });
});

describe("hub discord register", () => {
  test("puts the three commands, each within Discord's rules in all 15 languages, and prints the endpoint and the invite", async () => {
    const run = await runCli(["discord", "register"], { env });
    expect(run.stderr).toBe("");
    expect(run.exitCode).toBe(0);
    expect(run.stdout.trim().split("\n")).toEqual([
      `put 3 commands (/bonus, /when, /events) on application ${APPLICATION_ID} for every server the application is in (Discord may take up to an hour to show new ones)`,
      "interactions endpoint URL to give Discord: https://hub.example.org/api/v1/discord/interactions",
      INVITE,
    ]);
    const put = discord.puts.at(-1);
    expect(put?.problems).toEqual([]);
    expect(put?.path).toBe(`/api/v10/applications/${APPLICATION_ID}/commands`);
    expect(put?.authorization).toBe(`Bot ${TOKEN}`);
    expect(put?.userAgent).toStartWith("DiscordBot (https://hub.example.org, ");
    const set = discord.sets.get("global") ?? [];
    expect(set.map((c) => c.name)).toEqual(["bonus", "when", "events"]);
    for (const command of set) {
      // 14 languages besides English, Spanish and Chinese each as Discord spells them, English's own two locales left to the default.
      expect(Object.keys(command.name_localizations as object).sort()).toEqual(["de", "es-419", "es-ES", "fr", "it", "ja", "ko", "pl", "pt-BR", "ru", "th", "tr", "zh-CN", "zh-TW"]);
      expect(Object.keys(command.description_localizations as object)).toHaveLength(14);
    }
    const bonus = set[0] as { name_localizations: Record<string, string>; description_localizations: Record<string, string> };
    expect(bonus.name_localizations.ja).toBe("ボーナス");
    expect(bonus.description_localizations.de).toBe("Der Bonus einer Region jetzt oder die Regionen mit Bonus auf einer Plattform");
    expect(run.stdout).not.toContain(TOKEN);
  }, 30_000);

  test("is idempotent: run again, the same set, the same ids, the same words", async () => {
    const first = await runCli(["discord", "register"], { env });
    const before = JSON.stringify(discord.sets.get("global"));
    const second = await runCli(["discord", "register"], { env });
    expect(second.exitCode).toBe(0);
    expect(second.stdout).toBe(first.stdout);
    expect(JSON.stringify(discord.sets.get("global"))).toBe(before);
  }, 30_000);

  test("--guild puts the set on that server only", async () => {
    const run = await runCli(["discord", "register", "--guild", GUILD], { env });
    expect(run.exitCode).toBe(0);
    expect(run.stdout).toContain(`for server ${GUILD}`);
    expect(discord.puts.at(-1)?.path).toBe(`/api/v10/applications/${APPLICATION_ID}/guilds/${GUILD}/commands`);
    expect(discord.sets.get(GUILD)?.map((c) => c.name)).toEqual(["bonus", "when", "events"]);
  }, 30_000);

  test("errors: one line each; settings and usage exit 2, Discord's refusal exits 1", async () => {
    const cases: [string[], Record<string, string>, number, string][] = [
      [["discord", "register"], { ...env, DISCORD_BOT_TOKEN: "" }, 2, "hub: set DISCORD_BOT_TOKEN"],
      [["discord", "register", "--guild", "my-server"], env, 2, 'hub: --guild "my-server" is not a server id'],
      [["discord"], env, 2, 'hub: use "hub discord register [--guild ID]"'],
      [["discord", "register"], { DISCORD_BOT_TOKEN: TOKEN, DISCORD_API_URL: discord.url, DB_PATH: ":memory:" }, 2, "hub: set DISCORD_APPLICATION_ID and DISCORD_PUBLIC_KEY"],
      [["discord", "register"], { ...env, DISCORD_BOT_TOKEN: "a-wrong-bot-token-0123456789" }, 1, "hub: Discord refused the bot token (401)"],
      [["discord", "register", "--guild", "1200000000000000099"], env, 1, "hub: Discord refused (403: Missing Access (code 50001)): add the application to server 1200000000000000099 first"],
    ];
    for (const [args, caseEnv, code, line] of cases) {
      const run = await runCli(args, { env: caseEnv });
      expect({ args, code: run.exitCode }).toEqual({ args, code });
      expect(run.stderr.trim().split("\n")).toHaveLength(1);
      expect(run.stderr).toStartWith(line);
      expect(run.stderr).not.toContain("a-wrong-bot-token");
    }
  }, 60_000);
});
