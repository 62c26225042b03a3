/** Serialises plain-object results as `application/json; charset=utf-8`, keeping the status set by the handler. */
import { Elysia } from "elysia";
import { JSON_TYPE } from "./schemas.ts";

function isPlainData(value: unknown): value is object {
  if (value === null || typeof value !== "object") return false;
  if (Array.isArray(value)) return true;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

export function jsonResponses() {
  return new Elysia({ name: "hub/json" }).mapResponse({ as: "global" }, ({ responseValue, set }) => {
    if (!isPlainData(responseValue)) return;
    return new Response(JSON.stringify(responseValue), {
      status: typeof set.status === "number" ? set.status : 200,
      headers: { "content-type": JSON_TYPE },
    });
  });
}
