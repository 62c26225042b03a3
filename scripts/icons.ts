/** Renders the PNG icons from assets/icons/icon.svg into a folder, for the build to embed. */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { ICON_SIZES, iconFileName, renderIcon } from "../src/share/icons.ts";

export async function writeIcons(dir: string): Promise<string[]> {
  mkdirSync(dir, { recursive: true });
  const files: string[] = [];
  for (const size of ICON_SIZES) {
    const file = join(dir, iconFileName(size));
    await Bun.write(file, await renderIcon(size));
    files.push(file);
  }
  return files;
}

if (import.meta.main) console.log((await writeIcons(process.argv[2] ?? join(import.meta.dir, "..", "dist", "icons"))).join("\n"));
