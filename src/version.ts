import pkg from "../package.json" with { type: "json" };

export const HUB_NAME = "Incentives Hub";
export const HUB_VERSION: string = pkg.version;
