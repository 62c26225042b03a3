/**
 * Text fields whose length counts characters. JSON Schema defines a string's
 * length in Unicode code points, but TypeBox checks `minLength`/`maxLength`
 * against UTF-16 units, so 61 emoji would count as 122. Schemas made here are
 * plain `{ type: "string", minLength, maxLength, pattern }` on the wire and in
 * the OpenAPI description, and are checked by code-point count.
 */
import { Kind, TypeRegistry } from "@sinclair/typebox";
import { t } from "elysia";
import { characters } from "../domain/characters.ts";

const KIND = "HubText";

export interface TextOptions {
  readonly minLength?: number;
  readonly maxLength?: number;
  /** A regular expression the whole value must match (read with the `u` flag, as JSON Schema does). */
  readonly pattern?: string;
  readonly format?: "email" | "uri" | "date-time";
  /** The only values allowed. */
  readonly enum?: readonly string[];
  readonly description?: string;
  readonly examples?: readonly string[];
  /** The rule in words, for validation messages when a pattern alone would not say it. */
  readonly rule?: string;
}

const patterns = new Map<string, RegExp>();

function matches(pattern: string, value: string): boolean {
  let compiled = patterns.get(pattern);
  if (!compiled) {
    compiled = new RegExp(pattern, "u");
    patterns.set(pattern, compiled);
  }
  return compiled.test(value);
}

if (!TypeRegistry.Has(KIND)) {
  TypeRegistry.Set<TextOptions>(KIND, (schema, value) => {
    if (typeof value !== "string") return false;
    if (schema.maxLength !== undefined && value.length > schema.maxLength * 2) return false;
    const length = characters(value);
    if (schema.minLength !== undefined && length < schema.minLength) return false;
    if (schema.maxLength !== undefined && length > schema.maxLength) return false;
    if (schema.enum !== undefined && !schema.enum.includes(value)) return false;
    return schema.pattern === undefined || matches(schema.pattern, value);
  });
}

/** A string schema checked by characters (code points). */
export function text(options: TextOptions = {}) {
  const { rule, ...schema } = options;
  return t.Unsafe<string>({ [Kind]: KIND, type: "string", ...schema, ...(rule === undefined ? {} : { "x-rule": rule }) });
}
