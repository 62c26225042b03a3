import { HUB_NAME, HUB_VERSION } from "../version.ts";
import type { Command } from "./command.ts";

export function versionLine(): string {
  return `${HUB_NAME} ${HUB_VERSION} (bun ${Bun.version})`;
}

export const version: Command = {
  name: "version",
  usage: "hub version",
  summary: "Print the hub's version",
  flags: [],
  words: 0,
  settings: [],
  async run({ out }) {
    out(versionLine());
    return 0;
  },
};
