/** PUBLIC_DIR on the compiled hub (SPEC §22): a customised dashboard served instead of the embedded app, and nothing outside its folder. */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { connect } from "node:net";
import { join } from "node:path";
import { scratchDirs } from "../helpers.ts";
import { compiledHub } from "./compiled.ts";
import { freePort, runCli, startHub, type RunningHub } from "./harness.ts";

const scratch = scratchDirs();
const SECRET = "the-secret-outside-the-folder";
const PAGE = `<!doctype html><html><head><title>Customised dashboard</title><script src="/assets/index-3f9a1c2b.js"></script></head><body>${"<p>board</p>".repeat(200)}</body></html>`;
/** The field's index.html leaves the origin to the hub, as `__OG_ORIGIN__`. */
const SHARED = `<!doctype html><html><head><title>Shared</title><meta property="og:url" content="__OG_ORIGIN__/" /><meta property="og:image" content="__OG_ORIGIN__/og.png" /><meta name="twitter:image" content="__OG_ORIGIN__/og.png" /></head><body></body></html>`;
const DOTFILE = "SECRET_KEY=from-the-dotfile";
const SCRIPT = `console.log("dashboard");${" ".repeat(4000)}`;

/** Sends a request line exactly as written, as an attacker's client would, past any URL normalising of fetch. */
function raw(url: string, target: string): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => socket.write(`GET ${target} HTTP/1.1\r\nHost: ${hostname}\r\nConnection: close\r\n\r\n`));
    let answer = "";
    socket.on("data", (chunk) => (answer += chunk.toString()));
    socket.on("end", () => resolve(answer));
    socket.on("error", reject);
  });
}

describe("PUBLIC_DIR", () => {
  let hub: RunningHub;

  beforeAll(async () => {
    const base = scratch();
    const dir = join(base, "public");
    mkdirSync(join(dir, "assets"), { recursive: true });
    writeFileSync(join(dir, "index.html"), PAGE);
    writeFileSync(join(dir, "assets", "index-3f9a1c2b.js"), SCRIPT);
    writeFileSync(join(dir, "notes.txt"), "User-agent: *\n");
    writeFileSync(join(dir, "shared.html"), SHARED);
    writeFileSync(join(dir, ".env"), DOTFILE);
    mkdirSync(join(dir, ".git"));
    writeFileSync(join(dir, ".git", "config"), DOTFILE);
    writeFileSync(join(dir, "assets", ".env"), DOTFILE);
    mkdirSync(join(dir, ".well-known"));
    writeFileSync(join(dir, ".well-known", "security.txt"), "Contact: mailto:ops@example.org\n");
    writeFileSync(join(dir, ".well-known", ".env"), DOTFILE);
    writeFileSync(join(dir, "robots.txt"), "the folder's robots.txt\n");
    writeFileSync(join(dir, "sw.js"), "// the folder's worker\n");
    mkdirSync(join(base, "outside"));
    writeFileSync(join(base, "outside", "secret.txt"), SECRET);
    writeFileSync(join(base, "secret.txt"), SECRET);
    symlinkSync(join(base, "outside"), join(dir, "leak"));
    symlinkSync(join(base, "outside", "secret.txt"), join(dir, "leak.txt"));
    // Plain names that resolve to hidden ones, relative as `ln -s .env envlink` makes them (SPEC §16.4).
    symlinkSync(".env", join(dir, "envlink"));
    symlinkSync(".git", join(dir, "gitdir"));
    symlinkSync("../.git/config", join(dir, "assets", "config.txt"));
    symlinkSync(".well-known", join(dir, "well-known"));
    const port = await freePort();
    hub = await startHub({
      cmd: [await compiledHub()],
      port,
      args: ["--db", join(base, "hub.db")],
      env: { PUBLIC_DIR: dir, PUBLIC_DIR_CSP: "script-src https://cdn.example.org; img-src https:", ORIGIN: `http://127.0.0.1:${port}` },
    });
  }, 60_000);

  afterAll(async () => {
    await hub.stop();
  });

  test("every page path gets the folder's index.html, with the hub's headers and its CSP widened only as asked", async () => {
    for (const path of ["/", "/platforms/Windows/regions/eu-central-1", "/register", "/admin/users", "/index.html"]) {
      const response = await fetch(`${hub.url}${path}`, { redirect: "manual" });
      expect(`${path} ${response.status}`).toBe(`${path} 200`);
      expect(await response.text()).toBe(PAGE);
      expect(response.headers.get("cache-control")).toBe("no-cache");
      expect(response.headers.get("x-content-type-options")).toBe("nosniff");
      expect(response.headers.get("x-frame-options")).toBe("DENY");
      const csp = response.headers.get("content-security-policy") ?? "";
      expect(csp).toContain("script-src 'self' https://cdn.example.org");
      expect(csp).toContain("img-src 'self' data: https:");
      expect(csp).toContain("default-src 'none'");
      expect(csp).toContain("frame-ancestors 'none'");
    }
  });

  test("files are compressed and cached as the embedded app's are", async () => {
    const script = await fetch(`${hub.url}/assets/index-3f9a1c2b.js`, { headers: { "accept-encoding": "br" }, decompress: false });
    expect(script.status).toBe(200);
    expect(script.headers.get("content-encoding")).toBe("br");
    expect(script.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    const etag = script.headers.get("etag") ?? "";
    expect(etag).not.toBe("");
    expect((await fetch(`${hub.url}/assets/index-3f9a1c2b.js`, { headers: { "if-none-match": etag } })).status).toBe(304);
    const page = await fetch(`${hub.url}/`, { headers: { "accept-encoding": "gzip" }, decompress: false });
    expect(page.headers.get("content-encoding")).toBe("gzip");
    const notes = await fetch(`${hub.url}/notes.txt`);
    expect(notes.headers.get("cache-control")).toBe("no-cache");
    expect(await notes.text()).toBe("User-agent: *\n");
    expect((await fetch(`${hub.url}/assets/missing.js`)).status).toBe(404);
  });

  test("the API, docs and health stay the hub's", async () => {
    expect((await fetch(`${hub.url}/healthz`)).status).toBe(200);
    expect(((await (await fetch(`${hub.url}/api/v1/meta`)).json()) as { pageSize: number }).pageSize).toBe(20);
    const unknown = await fetch(`${hub.url}/api/v1/nothing-here`);
    expect(unknown.status).toBe(404);
    expect(unknown.headers.get("content-type")).toContain("application/problem+json");
    expect((await fetch(`${hub.url}/openapi.json`)).status).toBe(200);
    const login = await fetch(`${hub.url}/api/v1/auth/login`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ username: "nobody", password: "wrong-password" }) });
    expect(login.status).toBe(401);
  });

  test("a path that leaves the folder is a 404: .., encoded or not, and symlinks out", async () => {
    for (const target of [
      "/../secret.txt",
      "/../../../../etc/passwd",
      "/%2e%2e/secret.txt",
      "/%2E%2E%2Fsecret.txt",
      "/assets/..%2F..%2Fsecret.txt",
      "/assets/%2e%2e/%2e%2e/secret.txt",
      "/..%5csecret.txt",
      "/%00/secret.txt",
      "/leak/secret.txt",
      "/leak.txt",
      "/leak",
      "/leak/",
    ]) {
      const answer = await raw(hub.url, target);
      expect(answer).not.toContain(SECRET);
      const status = answer.split(" ")[1];
      // A path the URL parser folds back inside the folder is one of the app's pages; nothing else answers.
      expect(`${target} ${status === "200" ? (answer.includes("Customised dashboard") ? "page" : "other") : status}`).toMatch(new RegExp(`^${target.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")} (404|page)$`));
    }
    for (const target of ["/leak/secret.txt", "/leak.txt", "/leak", "/%2E%2E%2Fsecret.txt", "/assets/..%2F..%2Fsecret.txt"]) {
      expect((await raw(hub.url, target)).split(" ")[1]).toBe("404");
    }
  });

  test("hidden files are 404, raw or percent-encoded, except /.well-known/; every file carries the CSP and nosniff", async () => {
    for (const target of ["/.env", "/.git/config", "/%2eenv", "/%2Eenv", "/%2egit/config", "/.git", "/.git/", "/assets/.env", "/assets/%2eenv", "/.well-known/.env", "/.hidden-page"]) {
      const answer = await raw(hub.url, target);
      expect(`${target} ${answer.split(" ")[1]}`).toBe(`${target} 404`);
      expect(answer).not.toContain(DOTFILE);
      expect(answer).not.toContain("Customised dashboard");
    }
    // A plain name whose target is hidden, or inside a hidden folder, is hidden too.
    for (const target of ["/envlink", "/gitdir/config", "/gitdir", "/gitdir/", "/assets/config.txt", "/gitdir/%2e%2e/.env"]) {
      const answer = await raw(hub.url, target);
      expect(`${target} ${answer.split(" ")[1]}`).toBe(`${target} 404`);
      expect(answer).not.toContain(DOTFILE);
    }
    expect(await (await fetch(`${hub.url}/well-known/security.txt`)).text()).toBe("Contact: mailto:ops@example.org\n");
    const wellKnown = await fetch(`${hub.url}/.well-known/security.txt`);
    expect(wellKnown.status).toBe(200);
    expect(await wellKnown.text()).toBe("Contact: mailto:ops@example.org\n");
    for (const path of ["/.well-known/security.txt", "/assets/index-3f9a1c2b.js", "/notes.txt", "/", "/shared.html", "/assets/missing.js", "/.env"]) {
      const response = await fetch(`${hub.url}${path}`);
      await response.arrayBuffer();
      expect(`${path} ${response.headers.get("x-content-type-options")}`).toBe(`${path} nosniff`);
      expect(response.headers.get("content-security-policy") ?? "").toContain("default-src 'none'");
    }
  });

  test("the hub's own public routes keep answering, not the folder's index.html", async () => {
    const expected: readonly [string, RegExp][] = [
      ["/og.png", /^image\/png/],
      ["/og/Windows.png", /^image\/png/],
      ["/robots.txt", /^text\/plain/],
      ["/sitemap.xml", /(xml|application\/problem\+json)/],
      ["/manifest.webmanifest", /^application\/manifest\+json/],
      ["/feeds/Windows.atom", /^application\/atom\+xml/],
      ["/embed/embed.js", /^text\/javascript/],
      ["/embed/Windows", /^text\/html/],
      ["/badge/Windows/eu-central-1.svg", /^(image\/svg\+xml|application\/problem\+json)/],
    ];
    for (const [path, type] of expected) {
      const response = await fetch(`${hub.url}${path}`, { redirect: "manual" });
      const body = await response.text();
      expect(`${path} ${body.includes("Customised dashboard") ? "the folder's page" : response.headers.get("content-type")}`).toMatch(new RegExp(`^${path.replace(/[.+]/g, "\\$&")} ${type.source.replace(/^\^/, "")}`));
      expect(body).not.toBe("the folder's robots.txt\n");
    }
  });

  test("/sw.js is the hub's worker that removes itself, so a browser that ran the embedded board drops its worker and caches", async () => {
    const response = await fetch(`${hub.url}/sw.js`);
    const body = await response.text();
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^text\/javascript/);
    expect(response.headers.get("x-content-type-options")).toBe("nosniff");
    expect(body).not.toContain("the folder's worker");
    expect(body).not.toContain("Customised dashboard");
    expect(body).toContain("self.registration.unregister()");
    expect(body).toContain("caches.delete");
  });

  test("the field's __OG_ORIGIN__ placeholders are filled with the hub's origin", async () => {
    const shared = await (await fetch(`${hub.url}/shared.html`)).text();
    expect(shared).not.toContain("__OG_ORIGIN__");
    expect(shared).toContain(`<meta property="og:image" content="${hub.url}/og.png" />`);
    expect(shared).toContain(`<meta property="og:url" content="${hub.url}/" />`);
  });

  test("a missing folder stops start-up with one line and exit code 2", async () => {
    const result = await runCli(["serve", "--db", join(scratch(), "hub.db"), "--port", "3999"], { cmd: [await compiledHub()], env: { PUBLIC_DIR: "/nonexistent/dashboard" } });
    expect(result.exitCode).toBe(2);
    expect(result.stderr.trim()).toBe("hub: PUBLIC_DIR /nonexistent/dashboard does not exist; build the dashboard into it, or unset PUBLIC_DIR to serve the embedded app");
    const empty = scratch();
    const noIndex = await runCli(["serve", "--db", join(scratch(), "hub.db"), "--port", "3999"], { cmd: [await compiledHub()], env: { PUBLIC_DIR: empty } });
    expect(noIndex.exitCode).toBe(2);
    expect(noIndex.stderr.trim()).toBe(`hub: PUBLIC_DIR ${empty} has no index.html to serve for its pages`);
  });

  test("a PUBLIC_DIR_CSP that would replace a directive or add an unsafe source is refused", async () => {
    for (const csp of ["frame-ancestors *", "script-src 'unsafe-eval'", "script-src"]) {
      const result = await runCli(["serve", "--port", "3999"], { cmd: [await compiledHub()], env: { PUBLIC_DIR_CSP: csp } });
      expect(result.exitCode).toBe(2);
      expect(result.stderr).toContain("PUBLIC_DIR_CSP");
    }
  });
});
