/**
 * Elysia decides once, when it loads, from NODE_ENV, whether to build its
 * validation errors for a developer: the whole refused value pretty-printed
 * and an example of the expected one, which for a large refused body costs
 * the hub a tenth of a second or more of blocked event loop. The hub never
 * shows those messages (its problem details name each field), so it runs
 * Elysia in production mode unless NODE_ENV says otherwise. main.ts imports
 * this module before anything that loads Elysia.
 */
process.env.NODE_ENV ??= "production";
