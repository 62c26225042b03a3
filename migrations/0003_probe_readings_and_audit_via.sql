-- Whether the agent's assignment said probeImmediately when the reading
-- arrived. SPEC §9 rule 5 exempts an agent's second reading when its first was
-- a probe; keeping that fact on the reading itself lets the hub derive the
-- exemption from what is stored, so it survives a restart and needs no state
-- of its own to keep in step. Readings from before were not marked, so they
-- give no exemption.
ALTER TABLE readings ADD COLUMN probe INTEGER NOT NULL DEFAULT 0 CHECK (probe IN (0, 1));

-- How an audited change came in (SPEC §11.5b): a session, an API key, the
-- command line, or the configuration at start-up. Entries written before this
-- column existed say so only where the actor tells: the command line and the
-- configuration acted without a user, and setup always runs in a session.
-- For the rest, a session and an API key left the same trace, so they stay
-- NULL rather than guessed.
ALTER TABLE audit_log ADD COLUMN via TEXT CHECK (via IN ('session', 'api-key', 'cli', 'config'));
UPDATE audit_log SET via = 'cli' WHERE actor_user_id IS NULL AND actor = 'cli';
UPDATE audit_log SET via = 'config' WHERE actor_user_id IS NULL AND actor <> 'cli';
UPDATE audit_log SET via = 'session' WHERE actor_user_id IS NOT NULL AND action = 'setup';
