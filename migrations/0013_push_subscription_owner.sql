-- Push subscriptions end with their reason to exist (SPEC §16.4). While the
-- hub requires sign-in, a subscription belongs to the user whose session made
-- it: deleting the user deletes it (here, and in the hub's memory), and the
-- hub deletes it when the user is disabled or has their password reset. A
-- subscription failing for 7 days is deleted by the push worker, which finds
-- them through the partial index.
ALTER TABLE push_subscriptions ADD COLUMN user_id INTEGER REFERENCES users (id) ON DELETE CASCADE;

CREATE INDEX push_subscriptions_user ON push_subscriptions (user_id) WHERE user_id IS NOT NULL;
CREATE INDEX push_subscriptions_failing ON push_subscriptions (failing_since) WHERE failing_since IS NOT NULL;
