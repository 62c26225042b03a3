/**
 * The compose files (SPEC §21): compose.yaml alone runs the hub as before, and
 * compose.pushpin.yaml adds Pushpin in front of it with both sides wired to
 * each other: the hub publishes to the pushpin service's publish port and
 * reads its metrics, both sign with the same GRIP_KEY, Pushpin proxies to the
 * hub's port, and every file a build names exists. The image build itself
 * needs a registry and is not run here.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";

const ROOT = join(import.meta.dir, "..", "..");

interface Service {
  build?: { context: string; dockerfile: string };
  image?: string;
  ports?: string[];
  environment?: Record<string, string>;
  depends_on?: string[];
}
interface Compose {
  services: Record<string, Service>;
}

const read = (path: string) => readFileSync(join(ROOT, path), "utf8");
const compose = (path: string) => Bun.YAML.parse(read(path)) as Compose;
const base = compose("compose.yaml");
const override = compose("compose.pushpin.yaml");
const script = read("deploy/pushpin/container-start.sh");

function service(file: Compose, name: string): Service {
  const found = file.services[name];
  if (found === undefined) throw new Error(`no ${name} service`);
  return found;
}

/** A variable's default in container-start.sh (`${NAME:-value}`). */
function scriptDefault(name: string): string {
  const value = new RegExp(`\\$\\{${name}:-([^}]+)\\}`).exec(script)?.[1];
  if (value === undefined) throw new Error(`container-start.sh gives ${name} no default`);
  return value;
}

/** The container side of a "host:container" port mapping. */
const containerPort = (mapping: string) => mapping.split(":").at(-1);
const hostPort = (mapping: string) => mapping.split(":").at(-2);
const fromLine = (containerfile: string) => /^FROM\s+(\S+)/m.exec(containerfile)?.[1];

/** The variable a `${NAME:?message}` value requires. */
function requiredVariable(value: string | undefined): string | undefined {
  return /^\$\{([A-Z_]+):\?[^}]+\}$/.exec(value ?? "")?.[1];
}

describe("compose.yaml alone", () => {
  test("runs the hub only, on port 3000, without GRIP", () => {
    expect(Object.keys(base.services)).toEqual(["hub"]);
    const hub = service(base, "hub");
    expect(hub.ports).toEqual(["3000:3000"]);
    expect(Object.keys(hub.environment ?? {}).filter((name) => name.startsWith("GRIP_"))).toEqual([]);
  });
});

describe("compose.pushpin.yaml over compose.yaml", () => {
  const hub = service(override, "hub");
  const pushpin = service(override, "pushpin");
  const hubEnv = hub.environment ?? {};
  const pushpinEnv = pushpin.environment ?? {};

  test("adds a pushpin service beside the hub and leaves the hub's build, volume and ports to compose.yaml", () => {
    expect(Object.keys(override.services).sort()).toEqual(["hub", "pushpin"]);
    expect(Object.keys(hub).sort()).toEqual(["environment"]);
    expect(pushpin.depends_on).toEqual(["hub"]);
  });

  test("the hub publishes to the pushpin service's publish endpoint and reads its metrics", () => {
    const grip = new URL(hubEnv.GRIP_URL ?? "");
    expect(grip.hostname).toBe("pushpin");
    expect(grip.port).toBe(scriptDefault("PUSHPIN_PUBLISH_PORT"));
    // Inside the container network the publish endpoint listens on every interface.
    expect(scriptDefault("PUSHPIN_PUBLISH_ADDR")).toBe("0.0.0.0");
    const stats = new URL(hubEnv.GRIP_STATS_URL ?? "");
    expect(stats.hostname).toBe("pushpin");
    expect(stats.port).toBe(scriptDefault("PUSHPIN_METRICS_PORT"));
    expect(stats.pathname).toBe("/metrics");
  });

  test("both sides take GRIP_KEY from the same variable, which must be set", () => {
    expect(requiredVariable(hubEnv.GRIP_KEY)).toBe("GRIP_KEY");
    expect(requiredVariable(pushpinEnv.GRIP_KEY)).toBe("GRIP_KEY");
    expect(script).toContain(`"\${GRIP_KEY:?`);
  });

  test("viewers reach the site on Pushpin's port, which the hub's ORIGIN names, and Pushpin proxies to the hub's port", () => {
    const published = pushpin.ports ?? [];
    expect(published).toHaveLength(1);
    expect(containerPort(published[0] ?? "")).toBe(scriptDefault("PUSHPIN_HTTP_PORT"));
    expect(new URL(hubEnv.ORIGIN ?? "").port).toBe(hostPort(published[0] ?? "") ?? "");
    const hubPort = containerPort(service(base, "hub").ports?.[0] ?? "");
    expect(pushpinEnv.HUB_UPSTREAM).toBe(`hub:${hubPort}`);
    expect(scriptDefault("HUB_UPSTREAM")).toBe(`hub:${hubPort}`);
    expect(read("Containerfile")).toContain(`PORT=${hubPort}`);
  });

  test("the pushpin image builds from the hub's base with files that exist, and starts the script as a non-root user", () => {
    const build = pushpin.build;
    if (build === undefined) throw new Error("the pushpin service has no build");
    const context = join(ROOT, build.context);
    const containerfile = readFileSync(join(context, build.dockerfile), "utf8");
    expect(fromLine(containerfile)).toBe(fromLine(read("Containerfile")));
    expect(containerfile).toMatch(/apt-get install -y --no-install-recommends pushpin\b/);
    const copied = [...containerfile.matchAll(/^COPY\s+(?:--\S+\s+)*(.+)\s+(\S+)$/gm)].flatMap((m) => (m[1] ?? "").split(/\s+/));
    expect(copied.sort()).toEqual(["container-start.sh", "pushpin.conf", "routes"]);
    for (const file of copied) expect(existsSync(join(context, file))).toBe(true);
    expect(containerfile).toMatch(/^ENTRYPOINT \["\/usr\/local\/share\/pushpin-hub\/container-start\.sh"\]$/m);
    expect(/^USER\s+(\S+)/m.exec(containerfile)?.[1]).toMatch(/^[1-9]\d*:[1-9]\d*$/);
    expect(statSync(join(context, "container-start.sh")).mode & 0o111).not.toBe(0);
  });
});
