/** The problem detail's schema, as the API's description shows it (the type itself is src/domain/problem.ts). */
import { t } from "elysia";
import { unknownPlatform } from "../domain/catalogue.ts";

export const ProblemSchema = t.Object(
  {
    title: t.String({ description: "Short summary of the kind of problem" }),
    status: t.Integer({ description: "The HTTP status code" }),
    detail: t.String({ description: "What went wrong, in a sentence a user can act on" }),
    errors: t.Optional(
      t.Array(
        t.Object({
          location: t.String({ description: "Where the problem is, e.g. body.survivor or query.limit" }),
          message: t.String(),
          value: t.Optional(t.Unknown()),
        }),
      ),
    ),
    reauth: t.Optional(
      t.Literal(true, { description: "Present on a 403 that asks for a recent sign-in: confirm the password with POST /api/v1/auth/reauth (or verify a second factor), then repeat the request" }),
    ),
  },
  {
    title: "Problem",
    description: "An RFC 9457 problem detail (application/problem+json)",
    examples: [{ title: "Not Found", status: 404, detail: unknownPlatform("PS5") }],
  },
);
