/**
 * The OpenAPI description (/openapi.json, /openapi.yaml) and the interactive
 * reference at /docs. Swagger UI and every asset it needs are embedded in the
 * binary; the page loads nothing from anywhere but the hub.
 */
import type { AnyElysia } from "elysia";
import { Elysia, t } from "elysia";
import swaggerBundle from "swagger-ui-dist/swagger-ui-bundle.js" with { type: "file" };
import swaggerCss from "swagger-ui-dist/swagger-ui.css" with { type: "file" };
import type { Access } from "../../http/access.ts";
import { openApiDocument } from "../../http/openapi.ts";
import { HttpProblem } from "../../domain/problem.ts";
import { HTML_CSP } from "../../http/security.ts";
import { HUB_NAME } from "../../version.ts";
import darkCss from "./dark.css" with { type: "file" };
import initScript from "./init.js" with { type: "file" };

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<title>${HUB_NAME} API reference</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/docs/assets/swagger-ui.css">
<link rel="stylesheet" href="/docs/assets/dark.css">
</head>
<body>
<a class="docs-home" href="/">← ${HUB_NAME}</a>
<div id="swagger-ui"></div>
<script src="/docs/assets/swagger-ui-bundle.js"></script>
<script src="/docs/assets/init.js"></script>
</body>
</html>
`;

/** Embedded files (paths inside the binary), read only when /docs is actually used. */
interface Asset {
  readonly type: string;
  readonly path: string;
  gzipped?: Uint8Array<ArrayBuffer>;
}

const ASSETS: Readonly<Record<string, Asset>> = {
  "swagger-ui-bundle.js": { type: "text/javascript; charset=utf-8", path: swaggerBundle },
  "swagger-ui.css": { type: "text/css; charset=utf-8", path: swaggerCss },
  "dark.css": { type: "text/css; charset=utf-8", path: darkCss },
  "init.js": { type: "text/javascript; charset=utf-8", path: initScript },
};

async function serveAsset(asset: Asset, request: Request): Promise<Response> {
  const headers: Record<string, string> = { "content-type": asset.type, "cache-control": "public, max-age=3600", vary: "Accept-Encoding" };
  if ((request.headers.get("accept-encoding") ?? "").includes("gzip")) {
    asset.gzipped ??= Bun.gzipSync(await Bun.file(asset.path).bytes());
    return new Response(asset.gzipped, { headers: { ...headers, "content-encoding": "gzip" } });
  }
  return new Response(Bun.file(asset.path), { headers });
}

export function docsRoutes(app: () => AnyElysia, access: Access, origin: string) {
  const document = openApiDocument(app, origin);
  return new Elysia({ name: "routes/docs" })
    .use(access.plugin)
    .get("/openapi.json", () => new Response(document().json, { headers: { "content-type": "application/json; charset=utf-8" } }), {
      access: "public",
      response: { 200: t.Record(t.String(), t.Unknown(), { description: "An OpenAPI 3.1 document" }) },
      detail: { tags: ["system"], summary: "OpenAPI description (JSON)", description: "This description, as OpenAPI 3.1 JSON." },
    })
    .get("/openapi.yaml", () => new Response(document().yaml, { headers: { "content-type": "application/yaml; charset=utf-8" } }), {
      access: "public",
      response: { 200: t.String({ description: "An OpenAPI 3.1 document in YAML" }) },
      detail: { tags: ["system"], summary: "OpenAPI description (YAML)", description: "This description, as OpenAPI 3.1 YAML.", "x-media-type": "application/yaml" },
    })
    .get("/docs", () => new Response(PAGE, { headers: { "content-type": "text/html; charset=utf-8", "content-security-policy": HTML_CSP } }), {
      access: "public",
      response: { 200: t.String({ description: "An HTML page" }) },
      detail: {
        tags: ["system"],
        summary: "Interactive reference",
        description: "This description as an interactive page, served entirely by the hub.",
        "x-media-type": "text/html",
      },
    })
    .get(
      "/docs/assets/:name",
      async ({ params, request }) => {
        const asset = ASSETS[params.name];
        if (!asset) throw new HttpProblem(404, `There is no documentation asset "${params.name}".`);
        return await serveAsset(asset, request);
      },
      { access: "public", params: t.Object({ name: t.String() }), detail: { hide: true } },
    );
}
