/** The web app's API types are the hub's own OpenAPI description, regenerated: a stale file fails here. */
import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { renderWebTypes, WEB_TYPES_PATH } from "../../scripts/web-types.ts";

test("src/web/api/schema.d.ts matches the OpenAPI description (run `bun scripts/web-types.ts` after changing a route)", async () => {
  expect(readFileSync(WEB_TYPES_PATH, "utf8") === (await renderWebTypes())).toBe(true);
});
