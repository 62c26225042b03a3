/**
 * Schemas read aloud: "an integer from 1 to 50", "1 to 64 characters", "one
 * of admin, user, or null". Validation failures name the field and the rule in
 * these words, so a refusal says what would have been accepted.
 */
import { listOr } from "../domain/lists.ts";
import { DOCUMENT_AS } from "./schemas.ts";

type Schema = Record<string, unknown>;

function isSchema(value: unknown): value is Schema {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function range(min: unknown, max: unknown, unit = ""): string {
  const suffix = unit === "" ? "" : ` ${unit}`;
  if (typeof min === "number" && typeof max === "number") return min === max ? `exactly ${min}${suffix}` : `from ${min} to ${max}${suffix}`;
  if (typeof min === "number") return `at least ${min}${suffix}`;
  if (typeof max === "number") return `at most ${max}${suffix}`;
  return "";
}

function quoted(value: unknown): string {
  return typeof value === "string" ? `"${value}"` : String(value);
}

function describeString(schema: Schema): string {
  if (typeof schema["x-rule"] === "string") return schema["x-rule"];
  if (Array.isArray(schema.enum)) return `one of ${listOr(schema.enum.map(quoted))}`;
  const parts: string[] = [];
  switch (schema.format) {
    case "date-time":
      parts.push("an ISO-8601 date and time with a zone, such as 2026-11-21T18:04:05Z");
      break;
    case "email":
      parts.push("an e-mail address");
      break;
    case "uri":
      parts.push("an http or https URL");
      break;
    default:
      parts.push("a string");
  }
  const length = range(schema.minLength, schema.maxLength, "characters").replace(/^from /, "");
  if (length !== "") parts.push(`of ${length}`);
  if (typeof schema.pattern === "string" && schema.format === undefined) parts.push(`matching ${schema.pattern}`);
  return parts.join(" ");
}

function describeNumber(schema: Schema, noun: string): string {
  const lower = typeof schema.exclusiveMinimum === "number" ? `greater than ${schema.exclusiveMinimum}` : "";
  const upper = typeof schema.exclusiveMaximum === "number" ? `less than ${schema.exclusiveMaximum}` : "";
  const inclusive = range(schema.minimum, schema.maximum);
  const bounds = [lower, upper].filter((b) => b !== "").join(" and ");
  if (bounds !== "") return `${noun} ${bounds}${inclusive === "" ? "" : ` and ${inclusive}`}`;
  return inclusive === "" ? noun : `${noun} ${inclusive}`;
}

/** The rule a schema states, as words that follow "must be". */
export function describeSchema(schema: unknown): string {
  if (!isSchema(schema)) return "a valid value";
  const documented = schema[DOCUMENT_AS];
  if (isSchema(documented)) return describeSchema(documented);
  if (typeof schema["x-rule"] === "string") return schema["x-rule"];
  if ("const" in schema) return quoted(schema.const);
  const branches = schema.anyOf;
  if (Array.isArray(branches)) {
    const nullable = branches.some((b) => isSchema(b) && b.type === "null");
    const rest = branches.filter((b) => !(isSchema(b) && b.type === "null"));
    const constants = rest.filter((b): b is Schema => isSchema(b) && "const" in b);
    const words =
      constants.length === rest.length && constants.length > 1 ? [`one of ${listOr(constants.map((b) => quoted(b.const)))}`] : [...new Set(rest.map(describeSchema))];
    if (nullable) words.push("null");
    return listOr(words);
  }
  switch (schema.type) {
    case "string":
      return describeString(schema);
    case "integer":
      return describeNumber(schema, "an integer");
    case "number":
      return describeNumber(schema, "a number");
    case "boolean":
      return "true or false";
    case "null":
      return "null";
    case "array": {
      const items = isSchema(schema.items) ? ` of ${describeSchema(schema.items)}` : "";
      const size = range(schema.minItems, schema.maxItems, "items");
      return `a list${items}${size === "" ? "" : ` with ${size}`}`;
    }
    case "object":
      return typeof schema.title === "string" ? `a JSON object (${schema.title})` : "a JSON object";
    default:
      return "a valid value";
  }
}

/** The message for one field that failed its schema. */
export function ruleMessage(schema: unknown, value: unknown): string {
  const rule = describeSchema(schema);
  return value === undefined ? `is required and must be ${rule}` : `must be ${rule}`;
}
