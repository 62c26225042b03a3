/** What the hub tells search engines (SPEC §19): everything or nothing, as the operator chose with SEO_ENABLED. */
import type { Platform } from "../domain/catalogue.ts";
import { escapeMarkup } from "./escape.ts";

/** Pages no search result should lead to: the API and everything behind a sign-in. */
export const PRIVATE_PATHS = ["/api/", "/admin", "/account", "/login", "/setup"] as const;

export function robotsTxt(seoEnabled: boolean, origin: string): string {
  if (!seoEnabled) return "User-agent: *\nDisallow: /\n";
  return ["User-agent: *", "Allow: /", ...PRIVATE_PATHS.map((p) => `Disallow: ${p}`), "", `Sitemap: ${origin}/sitemap.xml`, ""].join("\n");
}

export function sitemapXml(origin: string, covered: readonly { platform: Platform; regions: readonly string[] }[]): string {
  const paths = ["/", ...covered.flatMap(({ platform, regions }) => [`/${platform}`, ...regions.map((r) => `/${platform}/${r}`)])];
  const urls = paths.map((p) => `<url><loc>${escapeMarkup(`${origin}${p}`)}</loc></url>`).join("\n");
  return `<?xml version="1.0" encoding="utf-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n${urls}\n</urlset>\n`;
}
