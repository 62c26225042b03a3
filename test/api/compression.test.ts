import { describe, expect, test } from "bun:test";
import { brotliDecompressSync, gunzipSync } from "node:zlib";
import { acceptedEncoding, MIN_COMPRESS_BYTES, neverCompressed } from "../../src/http/compress.ts";
import { call, testHub } from "../helpers.ts";
import { addAgent } from "../live-helpers.ts";

function hub() {
  const h = testHub({});
  for (const region of ["eu-west-1", "eu-west-2", "us-east-1", "us-east-2", "ap-south-1", "ap-east-1", "sa-east-1", "ca-central-1"]) addAgent(h, region);
  return h;
}

async function decoded(response: Response): Promise<string> {
  const bytes = Buffer.from(await response.arrayBuffer());
  const encoding = response.headers.get("content-encoding");
  if (encoding === "br") return brotliDecompressSync(bytes).toString();
  if (encoding === "gzip") return gunzipSync(bytes).toString();
  return bytes.toString();
}

describe("API JSON compression (SPEC §7)", () => {
  test("the encoding is negotiated: brotli first, gzip next, q=0 refuses", () => {
    expect(acceptedEncoding("gzip, deflate, br, zstd")).toBe("br");
    expect(acceptedEncoding("gzip")).toBe("gzip");
    expect(acceptedEncoding("br;q=0, gzip;q=0.5")).toBe("gzip");
    expect(acceptedEncoding("identity")).toBeNull();
    expect(acceptedEncoding(null)).toBeNull();
  });

  for (const path of [
    "/api/v1/platforms/Windows/incentives",
    "/api/v1/platforms/Windows/coverage",
    "/api/v1/platforms/Windows/regions/eu-west-1/patterns",
    "/openapi.json",
    "/openapi.yaml",
  ]) {
    test(`${path}: compressed over 1 KiB, with Vary, the same document whatever the encoding`, async () => {
      const h = hub();
      const plain = await call(h, "GET", path);
      expect(plain.headers.get("content-encoding")).toBeNull();
      expect(plain.headers.get("vary")).toContain("Accept-Encoding");
      const text = await plain.text();
      expect(text.length).toBeGreaterThan(1024);
      for (const encoding of ["br", "gzip"]) {
        const response = await call(h, "GET", path, { headers: { "accept-encoding": encoding } });
        expect(response.status).toBe(200);
        expect(response.headers.get("content-encoding")).toBe(encoding);
        expect(response.headers.get("vary")).toContain("Accept-Encoding");
        expect(response.headers.get("x-content-type-options")).toBe("nosniff");
        const body = await decoded(response);
        expect(path.endsWith("/incentives") ? body.replace(/"generatedAt":"[^"]+"/, "") : body).toBe(
          path.endsWith("/incentives") ? text.replace(/"generatedAt":"[^"]+"/, "") : text,
        );
      }
    });
  }

  test("a text is taken as never compressed only when no characters could make it longer than the limit in UTF-8", () => {
    const longest = Math.floor(MIN_COMPRESS_BYTES / 3);
    for (const unit of ["x", "é", "€", "😀"]) {
      const text = unit.repeat(Math.ceil(longest / unit.length));
      expect(neverCompressed(text)).toBe(text.length <= longest);
      if (neverCompressed(text)) expect(new TextEncoder().encode(text).byteLength).toBeLessThanOrEqual(MIN_COMPRESS_BYTES);
    }
    expect(neverCompressed("€".repeat(longest))).toBe(true);
    expect(neverCompressed("x".repeat(longest + 1))).toBe(false);
  });

  test("small answers and streams are not compressed; a small JSON answer still says Vary", async () => {
    const h = hub();
    const health = await call(h, "GET", "/healthz", { headers: { "accept-encoding": "br" } });
    expect((await health.clone().text()).length).toBeLessThan(1024);
    expect(health.headers.get("content-encoding")).toBeNull();
    expect(health.headers.get("vary")).toContain("Accept-Encoding");
    expect(health.headers.get("x-content-type-options")).toBe("nosniff");
    const controller = new AbortController();
    const stream = await h.app.handle(
      new Request("http://localhost/api/v1/platforms/Windows/incentives/stream", { headers: { "accept-encoding": "br, gzip" }, signal: controller.signal }),
    );
    expect(stream.headers.get("content-type")).toContain("text/event-stream");
    expect(stream.headers.get("content-encoding")).toBeNull();
    controller.abort();
  });
});
