-- The Standard Webhooks `webhook-id` of a delivery (SPEC §16.1): globally
-- unique and kept with the delivery, so every retry sends the same one and a
-- database restored from a backup never sends an id a receiver has seen
-- before (the row id repeats after a restore; this does not). Deliveries
-- written before get a random id here.
ALTER TABLE webhook_deliveries ADD COLUMN message_id TEXT NOT NULL DEFAULT '';
UPDATE webhook_deliveries SET message_id = 'msg_' || lower(hex(randomblob(16))) WHERE message_id = '';
CREATE UNIQUE INDEX webhook_deliveries_message ON webhook_deliveries (message_id);
